/// A raw HTTP/1.1 request as text, in the official test suites' `request.txt` format:
/// `METHOD SP target SP HTTP/1.1`, `Name:value` lines (a line starting with whitespace
/// continues the previous value, newline kept), an empty line, then the body to the end.
package struct HTTPRequestText: Sendable, Equatable {
    /// The method from the request line.
    package var method: String
    /// The raw request target (path and query), which may contain raw spaces or UTF-8.
    package var target: String
    /// The header fields in order, values exactly as written after the first `:`.
    package var headers: HTTPHeaderList
    /// The body bytes.
    package var body: [UInt8]

    /// Parses request text. A missing empty line before end of input means "no body".
    /// - Throws: ``SigningError/malformedRequest(_:)`` or ``SigningError/malformedHeaderLine(_:)``.
    package init(parsing bytes: [UInt8]) throws(SigningError) {
        var lines = LineReader(bytes)
        guard let requestLine = lines.next(), !requestLine.isEmpty else {
            throw .malformedRequest("empty request: expected 'METHOD target HTTP/1.1'")
        }
        (method, target) = try Self.splitRequestLine(requestLine)
        headers = HTTPHeaderList()
        var fields: [HTTPHeaderList.Field] = []
        while let line = lines.next(), !line.isEmpty {
            if let first = line.first, first == 0x20 || first == 0x09 {
                guard !fields.isEmpty else { throw .malformedHeaderLine(String(decoding: line, as: UTF8.self)) }
                fields[fields.count - 1].value += "\n" + String(decoding: line, as: UTF8.self)
                continue
            }
            fields.append(try Self.splitHeaderLine(String(decoding: line, as: UTF8.self)))
        }
        headers = HTTPHeaderList(fields)
        body = Array(bytes[lines.offset...])
    }

    /// Splits a `Name: value` line at the first `:`; the value is kept as written (it may be empty).
    /// - Throws: ``SigningError/malformedHeaderLine(_:)`` or ``SigningError/invalidHeaderName(_:)``.
    package static func splitHeaderLine(_ line: String) throws(SigningError) -> HTTPHeaderList.Field {
        // Bytes, not Characters: a combining mark after the colon must not hide it.
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedHeaderLine(line) }
        let name = String(decoding: line.utf8[..<colon], as: UTF8.self)
        guard ASCII.isToken(name) else { throw .invalidHeaderName(name) }
        return HTTPHeaderList.Field(name: name, value: String(decoding: line.utf8[line.utf8.index(after: colon)...], as: UTF8.self))
    }

    private static func splitRequestLine(_ line: ArraySlice<UInt8>) throws(SigningError) -> (String, String) {
        var text = String(decoding: line, as: UTF8.self)
        // The target may hold literal spaces (aws-c-auth's get-space cases), so the version is
        // cut from the end rather than splitting on every space.
        for version in [" HTTP/1.1", " HTTP/1.0"] where text.hasSuffix(version) {
            text.removeLast(version.count)
        }
        guard let space = text.utf8.firstIndex(of: UInt8(ascii: " ")) else {
            throw .malformedRequest("request line '\(text)' has no target")
        }
        let method = String(decoding: text.utf8[..<space], as: UTF8.self)
        let target = String(decoding: text.utf8[text.utf8.index(after: space)...], as: UTF8.self)
        guard !method.isEmpty, !target.isEmpty else { throw .malformedRequest("request line '\(text)' is incomplete") }
        return (method, target)
    }

    /// The request in signable form; the `Host` header supplies the authority.
    package func signableRequest(scheme: String = "https") throws(SigningError) -> SignableRequest {
        // Split on the byte: a combining mark after `?` would hide it from a Character search.
        let mark = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = mark.map { String(decoding: target.utf8[..<$0], as: UTF8.self) } ?? target
        let query = mark.map { String(decoding: target.utf8[target.utf8.index(after: $0)...], as: UTF8.self) } ?? ""
        return try SignableRequest(
            method: method, scheme: scheme, authority: headers.first(named: "host"), path: path,
            query: query, headers: headers, payload: body.isEmpty ? .empty : .bytes(body))
    }

    /// Renders `request` in the same text format (`Name:value` header lines).
    package static func render(_ request: SignableRequest) -> String {
        var out = "\(request.method) \(request.requestTarget) HTTP/1.1\n"
        for field in request.headers { out += "\(field.name):\(field.value)\n" }
        out += "\n"
        if let body = request.payload.bodyBytes { out += String(decoding: body, as: UTF8.self) }
        return out
    }
}

/// Splits bytes into LF-terminated lines, dropping a CR before the LF.
private struct LineReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> ArraySlice<UInt8>? {
        guard offset < bytes.count else { return nil }
        let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        var line = bytes[offset..<end]
        offset = min(end + 1, bytes.count)
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return line
    }
}

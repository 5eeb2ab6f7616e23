import HTTPTypes
import MultiAuthNIOBodies
import NIOCore
import NIOHTTP1

/// The conversions from SwiftNIO's received HTTP/1 heads to swift-http-types on the
/// forwarding path, each done once per message with no URL parsing, no search for a second
/// `Host` and no cookie splitting (swift-nio-extras' general conversions do all three, for any
/// use). Only origin-form targets reach a decision (``RequestHeadRules``), so the target is the
/// path as it came. Heads sent are written from swift-http-types straight to bytes (the
/// `ByteBuffer` extension below).
enum HTTP1Conversions {
    /// The request `head` as swift-http-types holds it: its only `Host` (the head rules let no
    /// other through) as the authority, every other field as it came, a `Cookie` field whole.
    /// Nil when its method is not a token.
    static func request(_ head: HTTPRequestHead) -> HTTPRequest? {
        guard let method = method(head.method) else { return nil }
        var authority: String?
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            if authority == nil, isHost(name) {
                authority = value
                continue
            }
            guard let name = HTTPField.Name.received(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPRequest(method: method, scheme: "http", authority: authority, path: head.uri, headerFields: fields)
    }

    /// The upstream's response `head` in swift-http-types, or nil for a status over 999.
    static func response(_ head: HTTPResponseHead) -> HTTPResponse? {
        guard head.status.code <= 999 else { return nil }
        let status = HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase)
        return HTTPResponse(status: status, headerFields: HTTPFields(http1: head.headers))
    }

    /// `Host` in any case, compared byte by byte (no lowercased copy of every name).
    private static func isHost(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        for expected in "host".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        return bytes.next() == nil
    }

    private static func method(_ method: HTTPMethod) -> HTTPRequest.Method? {
        switch method {
        case .GET: .get
        case .HEAD: .head
        case .POST: .post
        case .PUT: .put
        case .DELETE: .delete
        case .PATCH: .patch
        case .OPTIONS: .options
        case .CONNECT: .connect
        case .TRACE: .trace
        default: HTTPRequest.Method(method.rawValue)
        }
    }
}

extension ByteBuffer {
    /// Writes `request` as the HTTP/1.1 head sent upstream: `Host` first (from the authority),
    /// then the fields in order, every `Cookie` joined into one field where the first stood
    /// (RFC 9110 section 5.3 allows a list only for fields defined as lists, and `Cookie` is
    /// not one). swift-http-types holds no CR, LF or NUL in a value.
    mutating func writeRequestHead(_ request: HTTPRequest) {
        writeHead { add in
            add(request.method.rawValue)
            add(" ")
            add(request.path ?? "/")
            add(" HTTP/1.1\r\n")
            if let authority = request.authority { Self.field("Host", authority, add) }
            var cookieWritten = false
            for field in request.headerFields {
                guard field.name == .cookie else {
                    Self.field(field.name.rawName, field.value, add)
                    continue
                }
                guard !cookieWritten else { continue }
                cookieWritten = true
                add("Cookie: ")
                var first = true
                for cookie in request.headerFields where cookie.name == .cookie {
                    if !first { add("; ") }
                    add(cookie.value)
                    first = false
                }
                add("\r\n")
            }
            add("\r\n")
        }
    }

    /// Writes `head`'s status line and fields as HTTP/1.1, leaving out the framing fields
    /// `framing` replaces, and ends the head.
    mutating func writeResponseHead(_ head: HTTPResponse, framing: ResponseFraming) {
        let status = head.status
        let code = String(status.code)
        writeHead { add in
            add("HTTP/1.1 ")
            add(code)
            add(" ")
            add(status.reasonPhrase)
            add("\r\n")
            for field in head.headerFields where !framing.drops(field.name) { Self.field(field.name.rawName, field.value, add) }
            if framing == .chunked { add("transfer-encoding: chunked\r\n") }
            add("\r\n")
        }
    }

    /// One field's line: its name, `: `, its value and CRLF.
    private static func field(_ name: String, _ value: String, _ add: (String) -> Void) {
        add(name)
        add(": ")
        add(value)
        add("\r\n")
    }

    /// Writes the pieces `pieces` hands to `add`, in one access to the buffer: each small write
    /// to a `ByteBuffer` costs more than the bytes it copies (a capacity check and an exclusive
    /// access), and a head is some fifty pieces. `pieces` runs twice, to measure and to copy,
    /// and must hand over the same pieces both times.
    private mutating func writeHead(_ pieces: (_ add: (String) -> Void) -> Void) {
        var length = 0
        pieces { length += $0.utf8.count }
        writeWithUnsafeMutableBytes(minimumWritableBytes: length) { buffer in
            var offset = 0
            pieces { piece in
                var piece = piece
                piece.withUTF8 { bytes in
                    let end = min(offset + bytes.count, length)
                    let copied = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<(end - offset)]))
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<end]).copyMemory(from: copied)
                    offset = end
                }
            }
            return offset
        }
    }
}

/// How an answer's body is delimited on the client's connection, chosen as SwiftNIO's HTTP/1
/// encoder chooses it: none for a status that has no body (1xx, 204, 304) or an answer to
/// `CONNECT` (both framing fields dropped); the answer's `Content-Length` when it has one (any
/// `Transfer-Encoding` dropped); otherwise chunks.
enum ResponseFraming: Equatable {
    case none
    case contentLength
    case chunked

    /// The framing of `head`, answering a request whose method is `method`.
    init(_ head: HTTPResponse, answering method: HTTPMethod?) {
        let code = head.status.code
        if method == .CONNECT || (100..<200).contains(code) || code == 204 || code == 304 {
            self = .none
        } else if head.headerFields.contains(.contentLength) {
            self = .contentLength
        } else {
            self = .chunked
        }
    }

    /// A field this framing leaves out of the head as it was given.
    func drops(_ name: HTTPField.Name) -> Bool {
        switch self {
        case .none: name == .contentLength || name == .transferEncoding
        case .contentLength, .chunked: name == .transferEncoding
        }
    }
}

public import HTTPTypes

extension HTTPRequest {
    /// Creates a request from an absolute URL taken as it goes on the wire: the path and
    /// query are kept byte for byte (never decoded, dot segments not squashed).
    /// - Throws: ``HTTPMessageError`` for a URL without `scheme://host`, with a space or a
    ///   control character, or a header field that is not valid.
    public init(method: Method, wireURL: String, headerFields: HTTPFields = [:]) throws(HTTPMessageError) {
        let parts = try WireURLParts(wireURL)
        self.init(method: method, scheme: parts.scheme, authority: parts.authority, path: parts.target, headerFields: headerFields)
    }

    /// `scheme://authority/path?query`, as it goes on the wire.
    public var wireURL: String { "\(scheme ?? "https")://\(authority ?? "")\(path ?? "/")" }

    /// The host of the authority, without the port (named apart from any `host` another
    /// package may add to `HTTPRequest`). A wire URL has no user information.
    public var wireHost: String {
        guard let authority else { return "" }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}

extension HTTPFields {
    /// Fields from `(name, value)` pairs, in order, each checked.
    /// - Throws: ``HTTPMessageError/invalidHeaderName(_:)`` or
    ///   ``HTTPMessageError/invalidHeaderValue(name:)`` (a CR, LF or NUL in a value is never
    ///   folded into something else, so nothing can be injected).
    public init(checking pairs: [(String, String)]) throws(HTTPMessageError) {
        self.init()
        for (name, value) in pairs { try append(checkedName: name, value: value) }
    }

    /// The first value of `name`, or nil: repeated fields are not joined (the subscript joins
    /// them into a new string), for checks that read one field on every request.
    package func firstValue(_ name: HTTPField.Name) -> String? {
        for field in self where field.name == name { return field.value }
        return nil
    }

    /// The value of the last field named `name`, without joining repeated ones.
    package func lastValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name { found = field.value }
        return found
    }

    /// The value of `name` when it appears exactly once; nil when it is absent or repeated. For
    /// a credential read on every request: a repeated one is refused, as its joined value
    /// matched nothing, without building that string.
    package func onlyValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return nil }
            found = field.value
        }
        return found
    }

    /// Removes every field whose name `drops`, in place, keeping the others' order: fields
    /// that all stay are not copied, and each name dropped is removed by name
    /// (swift-http-types' specialized path, not its generic `replaceSubrange`).
    package mutating func removeFields(named drops: (HTTPField.Name) -> Bool) {
        var names: [HTTPField.Name] = []
        for field in self where !names.contains(field.name) && drops(field.name) { names.append(field.name) }
        for name in names { self[name] = nil }
    }

    /// Appends one field after checking its name and value.
    public mutating func append(checkedName name: String, value: String) throws(HTTPMessageError) {
        guard let fieldName = HTTPField.Name(name) else { throw .invalidHeaderName(name) }
        guard HTTPField.isValidValue(value) else { throw .invalidHeaderValue(name: name) }
        append(HTTPField(name: fieldName, value: value))
    }
}

/// A wire URL split into scheme, authority and request target, in one pass over its UTF-8
/// bytes (the signing hot path builds a request per call).
struct WireURLParts {
    let scheme: String
    let authority: String
    let target: String

    init(_ url: String) throws(HTTPMessageError) {
        var text = url
        let parts = text.withUTF8 { bytes in
            WireURLOffsets.find(in: bytes).map { offsets in
                let target = UnsafeBufferPointer(rebasing: bytes[offsets.target])
                return (
                    offsets.isHTTPS ? "https" : "http",
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[offsets.authority]), as: UTF8.self),
                    target.first == UInt8(ascii: "/") ? String(decoding: target, as: UTF8.self) : "/" + String(decoding: target, as: UTF8.self)
                )
            }
        }
        switch parts {
        case .failure(let failure): throw .invalidURL(url, reason: failure.reason)
        case .success(let parts): (scheme, authority, target) = parts
        }
    }
}

/// Where a wire URL's parts lie in its UTF-8 bytes: the one URL splitter, behind
/// `HTTPRequest(method:wireURL:)` and SigV4's `WireURL`, so both refuse the same URLs (a space or
/// a control character, a scheme other than http or https, no host, user information).
package struct WireURLOffsets {
    /// `https` rather than `http`.
    package let isHTTPS: Bool
    /// The authority: host and port, no user information.
    package let authority: Range<Int>
    /// Path and query, up to a fragment (which is dropped).
    package let target: Range<Int>

    /// Why a URL was refused, in words a message can quote.
    package struct Failure: Error {
        package let reason: String
    }

    /// The parts of `bytes`, or why it is not an absolute http(s) URL.
    package static func find(in bytes: UnsafeBufferPointer<UInt8>) -> Result<WireURLOffsets, Failure> {
        for byte in bytes where byte <= 0x20 || byte == 0x7f {
            return .failure(Failure(reason: byte == 0x20 ? "it contains a space (percent-encode it as %20)" : "it contains a control character"))
        }
        var separator = -1
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                separator = index + 3
                break
            }
            index += 1
        }
        guard separator >= 0 else { return .failure(Failure(reason: "expected scheme://host")) }
        guard let isHTTPS = isHTTPS(UnsafeBufferPointer(rebasing: bytes[..<(separator - 3)])) else {
            return .failure(Failure(reason: "the scheme must be http or https"))
        }
        var end = separator
        while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
        var authorityEnd = separator
        while authorityEnd < end, bytes[authorityEnd] != UInt8(ascii: "/"), bytes[authorityEnd] != UInt8(ascii: "?") { authorityEnd += 1 }
        guard authorityEnd > separator else { return .failure(Failure(reason: "no host")) }
        guard !bytes[separator..<authorityEnd].contains(UInt8(ascii: "@")) else {
            return .failure(Failure(reason: "user information (user:password@) is not supported"))
        }
        return .success(WireURLOffsets(isHTTPS: isHTTPS, authority: separator..<authorityEnd, target: authorityEnd..<end))
    }

    /// True for `https`, false for `http` (any case), nil for any other scheme.
    private static func isHTTPS(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        let lower = bytes.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        if lower.elementsEqual("https".utf8) { return true }
        if lower.elementsEqual("http".utf8) { return false }
        return nil
    }
}

/// Why a request could not be built. Messages name the URL or the header name, never a value.
public struct HTTPMessageError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension HTTPMessageError {
    /// The URL is not an absolute http(s) URL as it would go on the wire.
    public static func invalidURL(_ value0: String, reason: String) -> HTTPMessageError {
        HTTPMessageError(.invalidURL(value0, reason: reason))
    }
    /// The method is not an HTTP token.
    public static func invalidMethod(_ value: String) -> HTTPMessageError { HTTPMessageError(.invalidMethod(value)) }
    /// The header name is not an HTTP token.
    public static func invalidHeaderName(_ value: String) -> HTTPMessageError {
        HTTPMessageError(.invalidHeaderName(value))
    }
    /// The value holds a CR, LF, NUL or another byte HTTP forbids (it could inject a header).
    public static func invalidHeaderValue(name: String) -> HTTPMessageError {
        HTTPMessageError(.invalidHeaderValue(name: name))
    }
}

extension HTTPMessageError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``HTTPMessageError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case invalidURL(String, reason: String)
        case invalidMethod(String)
        case invalidHeaderName(String)
        case invalidHeaderValue(name: String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .invalidURL(let url, let reason): "invalid URL '\(Redaction.url(url))': \(reason)"
            case .invalidMethod(let method): "invalid method '\(method.debugDescription.dropFirst().dropLast())': a method is one HTTP token"
            case .invalidHeaderName(let name): "invalid header name '\(name.debugDescription.dropFirst().dropLast())'"
            case .invalidHeaderValue(let name): "the value of header '\(name)' contains a line break or a control character"
            }
        }
    }
}

extension HTTPRequest.Method {
    /// A method from text.
    /// - Throws: ``HTTPMessageError/invalidMethod(_:)`` when it is not an HTTP token.
    public static func checked(_ text: String) throws(HTTPMessageError) -> Self {
        guard let method = Self(text) else { throw .invalidMethod(text) }
        return method
    }
}

extension HTTPMessageError.Kind {
    /// `HTTPMessage.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .invalidURL: "HTTPMessage.invalidURL"
        case .invalidMethod: "HTTPMessage.invalidMethod"
        case .invalidHeaderName: "HTTPMessage.invalidHeaderName"
        case .invalidHeaderValue: "HTTPMessage.invalidHeaderValue"
        }
    }
}

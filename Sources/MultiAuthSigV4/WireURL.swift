public import MultiAuthCore

/// An absolute http(s) URL split into its parts exactly as they go on the wire.
///
/// Nothing is decoded or re-encoded: the path and query keep every byte and every
/// percent-escape the caller wrote, because that is what the server will canonicalize.
/// Parsing works on UTF-8 bytes; it never walks grapheme clusters.
public struct WireURL: Sendable, Equatable {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased (IPv6 literals keep their brackets).
    public let host: String
    /// The explicit port, if any.
    public let port: Int?
    /// The raw path; empty when the URL has none.
    public let path: String
    /// The raw query without `?`; `nil` when the URL has no `?`.
    public let query: String?

    /// The `Host` header value: host, plus `:port` only when it is not the scheme's default.
    public var hostHeader: String {
        guard let port, port != Self.defaultPort(for: scheme) else { return host }
        return "\(host):\(port)"
    }

    /// Path plus `?query`, as in an HTTP/1.1 request line (`/` for an empty path).
    public var requestTarget: String {
        let base = path.isEmpty ? "/" : path
        guard let query else { return base }
        return base + "?" + query
    }

    static func defaultPort(for scheme: String) -> Int { scheme == "http" ? 80 : 443 }

    /// Splits `text`.
    /// - Throws: ``WireURLError`` naming what is wrong (a typo in a URL is not a signing failure).
    public init(_ text: String) throws(WireURLError) {
        var copy = text
        let parts = copy.withUTF8 { bytes in Result { () throws(WireURLError) in try Self.split(bytes, text) } }
        (scheme, host, port, path, query) = try parts.get()
    }

    private typealias Parts = (String, String, Int?, String, String?)

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) throws(WireURLError) -> Parts {
        func fail(_ reason: String) -> WireURLError { WireURLError(url: text, reason: reason) }
        let offsets: WireURLOffsets
        switch WireURLOffsets.find(in: bytes) {
        case .success(let found): offsets = found
        case .failure(let failure): throw fail(failure.reason)
        }
        let scheme = offsets.isHTTPS ? "https" : "http"
        let (host, port) = try splitAuthority(UnsafeBufferPointer(rebasing: bytes[offsets.authority]), fail: fail)
        let rest = bytes[offsets.target]
        guard let mark = rest.firstIndex(of: UInt8(ascii: "?")) else {
            return (scheme, host, port, String(decoding: rest, as: UTF8.self), nil)
        }
        let path = String(decoding: rest[..<mark], as: UTF8.self)
        return (scheme, host, port, path, String(decoding: rest[(mark + 1)...], as: UTF8.self))
    }

    private static func splitAuthority(
        _ authority: UnsafeBufferPointer<UInt8>, fail: (String) -> WireURLError
    ) throws(WireURLError) -> (String, Int?) {
        var hostEnd = authority.count
        var portStart: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw fail("unterminated IPv6 literal") }
            hostEnd = close + 1
            if hostEnd < authority.count {
                guard authority[hostEnd] == UInt8(ascii: ":") else { throw fail("unexpected text after IPv6 literal") }
                portStart = hostEnd + 1
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            portStart = colon + 1
        }
        guard hostEnd > 0 else { throw fail("missing host") }
        var port: Int?
        if let portStart {
            let digits = authority[portStart...]
            var value = 0
            for digit in digits {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9"), value <= 65535 else { value = -1; break }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
            }
            guard !digits.isEmpty, (1...65535).contains(value) else {
                throw fail("invalid port '\(String(decoding: digits, as: UTF8.self))'")
            }
            port = value
        }
        return (lowercasedString(authority[..<hostEnd]), port)
    }

    private static func lowercasedString(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        let count = bytes.count
        guard count > 0, let source = bytes.base.baseAddress.map({ $0 + bytes.startIndex }) else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let target = buffer.baseAddress else { return 0 }
            for offset in 0..<count { target[offset] = ASCII.lowercase(source[offset]) }
            return count
        }
    }
}

/// Why a text is not an absolute http(s) URL ``WireURL`` can split. The message shows the URL
/// with any password and query values redacted.
public struct WireURLError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// The URL as given (shown redacted).
    public let url: String
    /// What is wrong with it.
    public let reason: String

    /// The error for `url`, because of `reason`.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    public var description: String { "malformed URL '\(Redaction.url(url))': \(reason)" }

    /// `WireURL.malformed`.
    public var code: ErrorCode { "WireURL.malformed" }
}

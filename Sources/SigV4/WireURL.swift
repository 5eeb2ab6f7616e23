/// An absolute http(s) URL split into its parts exactly as they go on the wire.
///
/// Nothing is decoded or re-encoded: the path and query keep every byte and every
/// percent-escape the caller wrote, because that is what the server will canonicalize.
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
    /// - Throws: ``SigningError/malformedURL(_:reason:)`` naming what is wrong.
    public init(_ text: String) throws(SigningError) {
        func fail(_ reason: String) -> SigningError { .malformedURL(text, reason: reason) }
        if let bad = text.utf8.first(where: { $0 <= 0x20 || $0 == 0x7f }) {
            throw fail(bad == 0x20 ? "contains a space (percent-encode it as %20)" : "contains a control character")
        }
        guard let schemeEnd = text.range(of: "://") else { throw fail("missing scheme (expected http:// or https://)") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw fail("unsupported scheme '\(scheme)'") }
        var rest = text[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let afterAuthority = rest[authorityEnd...]
        guard !authority.contains("@") else { throw fail("user information in the URL is not supported") }
        let (host, port) = try Self.splitAuthority(authority, fail: fail)
        self.scheme = scheme
        self.host = host
        self.port = port
        if let mark = afterAuthority.firstIndex(of: "?") {
            path = String(afterAuthority[..<mark])
            query = String(afterAuthority[afterAuthority.index(after: mark)...])
        } else {
            path = String(afterAuthority)
            query = nil
        }
    }

    private static func splitAuthority(
        _ authority: Substring, fail: (String) -> SigningError
    ) throws(SigningError) -> (String, Int?) {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unterminated IPv6 literal") }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after IPv6 literal") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw fail("missing host") }
        var port: Int?
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else {
                throw fail("invalid port '\(portPart)'")
            }
            port = value
        }
        return (hostPart.lowercased(), port)
    }
}

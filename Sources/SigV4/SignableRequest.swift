/// The request body as the signer sees it: bytes to hash, a hash computed elsewhere
/// (for example from a file read in chunks), or no payload signing at all.
public enum Payload: Sendable, Equatable {
    /// No body; hashes as the SHA-256 of the empty string.
    case empty
    /// A body held in memory; hashed during signing.
    case bytes([UInt8])
    /// The lowercase hex SHA-256 of a body that is not held in memory.
    case sha256(String)
    /// `UNSIGNED-PAYLOAD`: the body is not covered by the signature.
    case unsigned

    /// The body bytes when they are held in memory.
    public var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }
}

/// An HTTP request in the form SigV4 signs: method, wire path and query, ordered headers,
/// and payload. It is the one "signable" shape behind header and query signing alike.
public struct SignableRequest: Sendable, Equatable {
    /// The HTTP method, as given (SigV4 signs it verbatim; AWS methods are uppercase).
    public var method: String
    /// `https` or `http`.
    public var scheme: String
    /// The URL authority used when there is no `Host` header (`host[:port]`), if known.
    public var authority: String?
    /// The raw wire path, exactly as sent.
    public var path: String
    /// The raw wire query without `?`, exactly as sent; empty when there is none.
    public var query: String
    /// The header fields, in order, repeated names kept.
    public var headers: HTTPHeaderList
    /// The body, or its hash.
    public var payload: Payload

    /// Creates a request from an absolute wire URL.
    /// - Throws: ``SigningError`` for a malformed URL or an invalid header name.
    public init(
        method: String, url: String, headers: HTTPHeaderList = [], payload: Payload = .empty
    ) throws(SigningError) {
        let wire = try WireURL(url)
        try self.init(
            method: method, scheme: wire.scheme, authority: wire.hostHeader,
            path: wire.path, query: wire.query ?? "", headers: headers, payload: payload)
    }

    /// Creates a request from its parts as they appear on the wire.
    /// - Throws: ``SigningError/invalidHeaderName(_:)`` for a header name that is not a token.
    public init(
        method: String, scheme: String = "https", authority: String?, path: String, query: String,
        headers: HTTPHeaderList, payload: Payload = .empty
    ) throws(SigningError) {
        for field in headers where !ASCII.isToken(field.name) {
            throw .invalidHeaderName(field.name)
        }
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.headers = headers
        self.payload = payload
    }

    /// The request target of the request line: path, plus `?query` when there is one.
    public var requestTarget: String {
        let base = path.isEmpty ? "/" : path
        return query.isEmpty ? base : base + "?" + query
    }

    /// The absolute URL (`scheme://host/target`), using the `Host` header when present.
    public var url: String {
        "\(scheme)://\(headers.first(named: "host") ?? authority ?? "")\(requestTarget)"
    }
}

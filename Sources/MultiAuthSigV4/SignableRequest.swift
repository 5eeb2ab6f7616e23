package import HTTPTypes
import MultiAuthCore

/// An HTTP request in the form SigV4 signs: method, wire path and query, ordered headers,
/// and payload. It is the one "signable" shape behind header and query signing alike (as
/// aws-c-auth's signable). Inside the package only: the public API speaks swift-http-types'
/// `HTTPRequest`, and the official suites' raw `request.txt` files (obsolete line folding,
/// odd whitespace that `HTTPFields` would normalize) are read straight into this shape.
package struct SignableRequest: Sendable, Equatable {
    /// The HTTP method, as given (SigV4 signs it verbatim; AWS methods are uppercase).
    package var method: String
    /// `https` or `http`.
    package var scheme: String
    /// The URL authority used when there is no `Host` header (`host[:port]`), if known.
    package var authority: String?
    /// The raw wire path, exactly as sent.
    package var path: String
    /// The raw wire query without `?`, exactly as sent; empty when there is none.
    package var query: String
    /// The header fields, in order, repeated names kept.
    package var headers: HTTPHeaderList
    /// The body, or its hash.
    package var payload: Payload

    /// Creates a request from an absolute wire URL.
    /// - Throws: ``SigningError`` for a malformed URL or an invalid header name.
    package init(
        method: String, url: String, headers: HTTPHeaderList = [], payload: Payload = .empty
    ) throws(SigningError) {
        let wire: WireURL
        do throws(WireURLError) { wire = try WireURL(url) } catch { throw .malformedURL(url, reason: error.reason) }
        try self.init(
            method: method, scheme: wire.scheme, authority: wire.hostHeader,
            path: wire.path, query: wire.query ?? "", headers: headers, payload: payload)
    }

    /// Creates a request from its parts as they appear on the wire.
    /// - Throws: ``SigningError/invalidHeaderName(_:)`` for a header name that is not a token.
    package init(
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

    /// Puts the authority in a `Host` field first when there is none, as the signature covers it.
    mutating func insertHostIfMissing() {
        guard !headers.contains(named: "host"), let authority, !authority.isEmpty else { return }
        headers.insert(name: "Host", value: authority, at: 0)
    }

    /// The request target of the request line: path, plus `?query` when there is one.
    package var requestTarget: String {
        let base = path.isEmpty ? "/" : path
        return query.isEmpty ? base : base + "?" + query
    }

    /// The absolute URL (`scheme://host/target`), using the `Host` header when present.
    package var url: String {
        "\(scheme)://\(headers.first(named: "host") ?? authority ?? "")\(requestTarget)"
    }
}

extension SignableRequest {
    /// The signable form of a swift-http-types request: the path pseudo-header is split at
    /// its first `?` into the wire path and query, and the fields keep their order and the
    /// spelling of their names.
    /// - Throws: ``SigningError/missingHost`` when the request has neither authority nor `Host`.
    package init(_ request: HTTPRequest, payload: Payload) throws(SigningError) {
        let target = request.path ?? "/"
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        var headers = HTTPHeaderList()
        headers.reserveCapacity(request.headerFields.count + 5)
        for field in request.headerFields { headers.append(name: field.name.rawName, value: field.value) }
        guard request.authority != nil || headers.contains(named: "host") else { throw .missingHost }
        self.method = request.method.rawValue
        self.scheme = request.scheme ?? "https"
        self.authority = request.authority
        // Sliced as bytes: a String subscript would round an index after `?` down to the start
        // of its Character when a combining mark follows.
        self.path = question.map { String(decoding: target.utf8[..<$0], as: UTF8.self) } ?? target
        self.query = question.map { String(decoding: target.utf8[target.utf8.index(after: $0)...], as: UTF8.self) } ?? ""
        self.headers = headers
        self.payload = payload
    }

    /// The swift-http-types form: a `Host` field becomes the authority, secret fields are
    /// marked never to be indexed by HTTP/2 and HTTP/3 encoders.
    /// - Throws: ``SigningError/invalidHeaderName(_:)`` or ``SigningError/invalidHeaderValue(_:)``, or
    ///   ``SigningError/controlCharacter(in:)`` for a request target `HTTPRequest` cannot carry as it is.
    package func httpRequest() throws(SigningError) -> HTTPRequest {
        guard let method = HTTPRequest.Method(method) else { throw .invalidMethod(method) }
        // HTTPRequest would turn a control character of the target into a space: refuse, so
        // the request sent is always the request signed.
        guard HTTPField.isValidValue(requestTarget) else { throw .controlCharacter(in: "the request target") }
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        var authority = self.authority
        for field in headers {
            if field.name.utf8.count == 4, field.name.lowercased() == "host" {
                guard HTTPField.isValidValue(field.value) else { throw .invalidHeaderValue(field.name) }
                authority = field.value
                continue
            }
            guard let name = HTTPField.Name(field.name) else { throw .invalidHeaderName(field.name) }
            guard HTTPField.isValidValue(field.value) else { throw .invalidHeaderValue(field.name) }
            var httpField = HTTPField(name: name, value: field.value)
            if Redaction.isSensitive(header: field.name) { httpField.indexingStrategy = .disallow }
            fields.append(httpField)
        }
        return HTTPRequest(method: method, scheme: scheme, authority: authority, path: requestTarget, headerFields: fields)
    }
}

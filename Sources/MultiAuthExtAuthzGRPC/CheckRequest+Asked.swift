package import HTTPTypes
package import MultiAuthInboundAuthorization

/// The request Envoy asks about, read from its `CheckRequest` as the HTTP auth service reads
/// it from Envoy's HTTP `ext_authz` call: the method, the request target (path and query, as
/// received), the authority and scheme, and the headers the filter sends.
extension ExtAuthzCheckRequest {
    /// What a `CheckRequest` says of the client's request.
    package struct Asked: Sendable {
        /// The client's request, with the headers Envoy sent (its pseudo-headers left out).
        package var request: HTTPRequest
        /// The body, when the filter sent it (`with_request_body`: Envoy then adds
        /// `x-envoy-auth-partial-body`); nil when it did not.
        package var body: [UInt8]?
        /// The client's address, as Envoy saw it ("" when not given).
        package var sourceIp: String
    }

    /// Envoy's mark on a request whose body it buffered for the check: `false` for the whole
    /// body, `true` for one cut at `max_request_bytes`.
    static let partialBodyField = "x-envoy-auth-partial-body"

    /// The request this check is about, or why it cannot be read (answered 400: Envoy is not
    /// configured as the docs show).
    package func asked() -> Result<Asked, InboundRejection> {
        let http = attributes.request.http
        guard let method = HTTPRequest.Method(http.method) else { return .failure(Self.unreadable("the method is missing or not a method")) }
        guard http.path.hasPrefix("/") else { return .failure(Self.unreadable("the path does not start with /")) }
        var request = HTTPRequest(method: method, scheme: http.scheme.isEmpty ? nil : http.scheme, authority: http.host, path: http.path)
        var buffered = false
        for (name, value) in headers(of: http) where !name.hasPrefix(":") {
            guard let field = HTTPField.Name(name) else { return .failure(Self.unreadable("a header name is not a field name")) }
            if field.canonicalName == Self.partialBodyField { buffered = true }
            request.headerFields.append(HTTPField(name: field, value: value))
        }
        let body: [UInt8]? = buffered ? (http.rawBody.isEmpty ? Array(http.body.utf8) : Array(http.rawBody)) : nil
        return .success(Asked(request: request, body: body, sourceIp: attributes.source.address.socketAddress.address))
    }

    /// The headers, from `header_map` (`encode_raw_headers`, raw values preferred) or the
    /// `headers` map, sorted by name so a request reads the same whichever way it came.
    private func headers(of http: ExtAuthzAttributeContext.HttpRequest) -> [(String, String)] {
        let pairs: [(String, String)] =
            http.headers.isEmpty
            ? http.headerMap.headers.map { ($0.key, $0.rawValue.isEmpty ? $0.value : String(decoding: $0.rawValue, as: UTF8.self)) }
            : http.headers.map { ($0.key, $0.value) }
        return pairs.sorted { $0.0 < $1.0 }
    }

    private static func unreadable(_ problem: String) -> InboundRejection {
        InboundRejection(status: .badRequest, errorType: "BadRequestException", message: "Bad Request", reason: "the CheckRequest: \(problem)")
    }
}

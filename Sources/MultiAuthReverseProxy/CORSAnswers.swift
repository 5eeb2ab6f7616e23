import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthCore

/// `x-amazon-apigateway-cors` as HTTP APIs apply it: the gateway answers a preflight itself,
/// without authorization, and adds the CORS fields to the upstream's responses for an
/// allowed origin.
enum CORSAnswers {
    /// The answer to a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`);
    /// nil for any other request. A disallowed origin, method or header gets no CORS fields.
    static func preflight(_ head: HTTPRequest, _ cors: CORSConfiguration) -> Forwarding.Decision? {
        guard let origin = head.headerFields[.origin], let method = head.headerFields[.accessControlRequestMethod] else { return nil }
        var fields = HTTPFields()
        fields[.vary] = "Origin"
        let headers = (head.headerFields[.accessControlRequestHeaders] ?? "").split(separator: ",").map { $0.trimmedWhitespace.lowercased() }
            .filter { !$0.isEmpty }
        let methodAllowed = cors.allowMethods.contains("*") || cors.allowMethods.contains(method.uppercased())
        let headersAllowed = cors.allowHeaders.contains("*") || headers.allSatisfy(cors.allowHeaders.contains)
        if let allowed = allowedOrigin(origin, cors), methodAllowed, headersAllowed {
            fields[.accessControlAllowOrigin] = allowed
            fields[.accessControlAllowMethods] = cors.allowMethods.contains("*") ? method.uppercased() : cors.allowMethods.joined(separator: ",")
            if !headers.isEmpty { fields[.accessControlAllowHeaders] = cors.allowHeaders.contains("*") ? headers.joined(separator: ",") : cors.allowHeaders.joined(separator: ",") }
            if let maxAge = cors.maxAge { fields[.accessControlMaxAge] = String(maxAge) }
            if cors.allowCredentials { fields[.accessControlAllowCredentials] = "true" }
        }
        return .answer(HTTPResponse(status: .noContent, headerFields: fields), body: [])
    }

    /// The fields an allowed origin's response carries.
    static func responseFields(_ head: HTTPRequest, _ cors: CORSConfiguration) -> HTTPFields {
        var fields = HTTPFields()
        guard let origin = head.headerFields[.origin], let allowed = allowedOrigin(origin, cors) else { return fields }
        fields[.accessControlAllowOrigin] = allowed
        if !cors.exposeHeaders.isEmpty { fields[.accessControlExposeHeaders] = cors.exposeHeaders.joined(separator: ",") }
        if cors.allowCredentials { fields[.accessControlAllowCredentials] = "true" }
        fields[.vary] = "Origin"
        return fields
    }

    /// The `Access-Control-Allow-Origin` value for `origin`: `*` when any origin is allowed
    /// without credentials, else the origin itself when it is listed.
    private static func allowedOrigin(_ origin: String, _ cors: CORSConfiguration) -> String? {
        if cors.allowOrigins.contains("*") { return cors.allowCredentials ? origin : "*" }
        return cors.allowOrigins.contains(origin) ? origin : nil
    }
}

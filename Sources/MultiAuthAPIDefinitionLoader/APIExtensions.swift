import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthCore
import OpenAPIKit30

/// API Gateway's `x-amazon-apigateway-*` extensions read into the definition's model, each
/// value checked: what the gateway does not honour is refused with its place, never ignored.
enum APIExtensions {
    static let integrationKey = "x-amazon-apigateway-integration"

    /// A security scheme: `awsSigv4`, an API key, a JWT or Cognito authorizer, or a request authorizer.
    static func scheme(_ scheme: OpenAPI.SecurityScheme, place: String) throws(APIDefinitionError) -> APISecurityScheme {
        let authType = (scheme.vendorExtensions["x-amazon-apigateway-authtype"]?.value as? String)?.lowercased()
        let authorizer = scheme.vendorExtensions["x-amazon-apigateway-authorizer"]?.value as? [String: Any]
        let authorizerType = (authorizer?["type"] as? String)?.lowercased()
        switch (authType, authorizerType) {
        case ("awssigv4", _): return .sigv4
        case ("cognito_user_pools", _), (_, "cognito_user_pools"):
            let arns = authorizer?["providerARNs"] as? [Any] ?? []
            let issuers = try arns.map { arn throws(APIDefinitionError) in try cognitoIssuer(arn as? String ?? "", place: place) }
            guard issuers.count == 1, let issuer = issuers.first else { throw .refused(place, "a Cognito authorizer needs exactly one providerARNs entry here") }
            return .jwt(issuer: issuer, audiences: [])
        case (_, "jwt"):
            let configuration = authorizer?["jwtConfiguration"] as? [String: Any]
            guard let issuer = configuration?["issuer"] as? String, issuer.hasPrefix("https://") || LoopbackAddress.isPlainHTTPOnLoopback(issuer) else {
                throw .refused(place, "a jwt authorizer needs jwtConfiguration.issuer, https (http only on a loopback host)")
            }
            let audiences = strings(configuration?["audience"])
            guard !audiences.isEmpty else { throw .refused(place, "a jwt authorizer needs at least one jwtConfiguration.audience, as API Gateway does") }
            return .jwt(issuer: issuer, audiences: audiences)
        case (_, "request"), (_, "token"):
            return .requestAuthorizer(try requestAuthorizer(authorizer ?? [:], type: authorizerType ?? "request", place: place))
        case (nil, nil):
            if case .apiKey(let name, let location) = scheme.type, name.lowercased() == "x-api-key", location == .header { return .apiKey }
            throw .refused(place, "only awsSigv4, an x-api-key header key, jwt, cognito_user_pools and request or token authorizers are served")
        default:
            throw .refused(place, "x-amazon-apigateway-authtype \(authType ?? "none") with an authorizer of type \(authorizerType ?? "none") is not served")
        }
    }

    /// `arn:aws:cognito-idp:REGION:ACCOUNT:userpool/POOL` → the pool's issuer.
    private static func cognitoIssuer(_ arn: String, place: String) throws(APIDefinitionError) -> String {
        let parts = arn.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[2] == "cognito-idp", parts[5].hasPrefix("userpool/") else { throw .refused(place, "\(arn) is not a user pool ARN") }
        return "https://cognito-idp.\(parts[3]).amazonaws.com/\(parts[5].dropFirst("userpool/".count))"
    }

    private static func requestAuthorizer(_ authorizer: [String: Any], type: String, place: String) throws(APIDefinitionError) -> RequestAuthorizerSettings {
        guard let uri = authorizer["authorizerUri"] as? String else { throw .refused(place, "the authorizer has no authorizerUri") }
        guard uri.hasPrefix("https://") || uri.hasPrefix("http://") else {
            throw .refused(place, "authorizerUri \(uri.prefix(80)) is not an HTTP(S) URL: Lambda functions are not called, give the authorizer's URL")
        }
        let sources = (authorizer["identitySource"] as? String).map { $0.split(separator: ",").map { $0.trimmedWhitespace } }
            ?? strings(authorizer["identitySource"])
        let ttl = authorizer["authorizerResultTtlInSeconds"] as? Int ?? 300
        guard (0...3_600).contains(ttl) else { throw .refused(place, "authorizerResultTtlInSeconds must be 0 to 3600") }
        let format = authorizer["authorizerPayloadFormatVersion"] as? String ?? "1.0"
        guard ["1.0", "2.0"].contains(format) else { throw .refused(place, "authorizerPayloadFormatVersion must be 1.0 or 2.0") }
        return RequestAuthorizerSettings(
            type: type, uri: uri, identitySources: sources, ttlSeconds: ttl, payloadFormat: format,
            simpleResponses: authorizer["enableSimpleResponses"] as? Bool ?? false)
    }

    /// An operation's route: its security (already resolved against the document's) and integration.
    static func route(
        method: HTTPRequest.Method?, template: String, security: [[SecurityRequirement]], integration: Any?,
        schemes: [String: APISecurityScheme], place: String
    ) throws(APIDefinitionError) -> APIRoute {
        for requirement in security.joined() where schemes[requirement.scheme] == nil {
            throw .refused(place, "security names \(requirement.scheme), which components.securitySchemes does not define")
        }
        guard let integration = integration as? [String: Any] else {
            throw .refused(place, "there is no \(integrationKey)")
        }
        return APIRoute(method: method, template: template, security: security, integration: try self.integration(integration, template: template, place: place))
    }

    /// `x-amazon-apigateway-any-method`: an operation object kept as an extension.
    static func anyMethodRoute(
        _ value: Any, template: String, inherited: [DereferencedSecurityRequirement], schemes: [String: APISecurityScheme], place: String
    ) throws(APIDefinitionError) -> APIRoute {
        guard let operation = value as? [String: Any] else { throw .refused(place, "it is not an operation object") }
        let security: [[SecurityRequirement]]
        if let own = operation["security"] {
            guard let alternatives = own as? [Any] else { throw .refused(place, "security is not a list") }
            security = try alternatives.map { alternative throws(APIDefinitionError) in
                guard let requirement = alternative as? [String: Any] else { throw .refused(place, "a security requirement is not an object") }
                return requirement.map { SecurityRequirement(scheme: $0.key, scopes: strings($0.value)) }.sorted { $0.scheme < $1.scheme }
            }
        } else {
            security = inherited.map { $0.schemes.values.map { SecurityRequirement(scheme: $0.name, scopes: $0.requiredScopes) }.sorted { $0.scheme < $1.scheme } }
        }
        return try route(method: nil, template: template, security: security, integration: operation[integrationKey], schemes: schemes, place: place)
    }

    private static func integration(_ integration: [String: Any], template: String, place: String) throws(APIDefinitionError) -> HTTPProxyIntegration {
        let type = (integration["type"] as? String ?? "").lowercased()
        switch type {
        case "http_proxy": break
        case "aws_proxy", "aws": throw .refused(place, "integration type \(type) (Lambda or an AWS service) is not served: use http_proxy to the function's URL")
        case "http", "mock": throw .refused(place, "integration type \(type) (VTL mapping templates, non-proxy) is not served: use http_proxy")
        default: throw .refused(place, "integration type \(type.isEmpty ? "none" : type) is not served: use http_proxy")
        }
        guard let uri = integration["uri"] as? String, uri.hasPrefix("https://") || uri.hasPrefix("http://") else {
            throw .refused(place, "the http_proxy integration needs an http(s) uri")
        }
        var mappings: [ParameterMapping] = []
        for (target, value) in (integration["requestParameters"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let source = value as? String else { throw .refused(place, "requestParameters.\(target) is not a string") }
            mappings.append(try mapping(target: target, source: source, place: place))
        }
        return HTTPProxyIntegration(uri: uri, requestParameters: mappings)
    }

    private static func mapping(target: String, source: String, place: String) throws(APIDefinitionError) -> ParameterMapping {
        let parts = target.split(separator: ".", maxSplits: 3).map(String.init)
        guard parts.count == 4, parts[0] == "integration", parts[1] == "request", !parts[3].isEmpty else {
            throw .refused(place, "requestParameters key \(target) is not integration.request.(header|querystring|path).NAME")
        }
        let where_: ParameterMapping.Target
        switch parts[2] {
        case "header": where_ = .header(parts[3])
        case "querystring": where_ = .querystring(parts[3])
        case "path": where_ = .path(parts[3])
        default: throw .refused(place, "requestParameters key \(target) maps to \(parts[2]), not header, querystring or path")
        }
        let known = ["method.request.header.", "method.request.querystring.", "method.request.path.", "context.authorizer.", "context.identity."]
        let literal = source.count >= 2 && source.hasPrefix("'") && source.hasSuffix("'")
        guard literal || known.contains(where: { source.hasPrefix($0) && source.count > $0.count }) else {
            throw .refused(place, "requestParameters.\(target) source \(source.prefix(80)) is not a method request part, context value or 'literal'")
        }
        return ParameterMapping(target: where_, source: source)
    }

    /// `x-amazon-apigateway-cors` at the document's root.
    static func cors(_ value: Any) throws(APIDefinitionError) -> CORSConfiguration {
        guard let cors = value as? [String: Any] else { throw .refused("x-amazon-apigateway-cors", "it is not an object") }
        let known: Set<String> = ["allowOrigins", "allowMethods", "allowHeaders", "exposeHeaders", "maxAge", "allowCredentials"]
        if let unknown = cors.keys.first(where: { !known.contains($0) }) { throw .refused("x-amazon-apigateway-cors.\(unknown)", "not a CORS setting") }
        return CORSConfiguration(
            allowOrigins: strings(cors["allowOrigins"]), allowMethods: strings(cors["allowMethods"]).map { $0.uppercased() },
            allowHeaders: strings(cors["allowHeaders"]).map { $0.lowercased() }, exposeHeaders: strings(cors["exposeHeaders"]),
            maxAge: cors["maxAge"] as? Int, allowCredentials: cors["allowCredentials"] as? Bool ?? false)
    }

    static func strings(_ value: Any?) -> [String] {
        if let single = value as? String { return [single] }
        return (value as? [Any] ?? []).compactMap { $0 as? String }
    }

}

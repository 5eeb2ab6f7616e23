package import HTTPTypes
import MultiAuthCore

/// An API Gateway definition as the gateway serves it: routes with their authorization and
/// integration, the security schemes they name, and CORS. Made by ``APIDefinition/load(_:name:)``
/// from an OpenAPI 3.0 document with API Gateway's extensions.
package struct APIDefinition: Sendable {
    /// The routes, in the document's order.
    package let routes: [APIRoute]
    /// The schemes by the name the document gives them.
    package let schemes: [String: APISecurityScheme]
    /// `x-amazon-apigateway-cors`, when the document has it.
    package let cors: CORSConfiguration?
    /// The base path of the first server (`servers[0].url`'s path), a prefix of every route.
    package let basePath: String
    /// Where API keys come from (`x-amazon-apigateway-api-key-source`).
    package let apiKeySource: APIKeySource
    let table: RouteTable

    /// The largest definition read: API Gateway imports at most 6 MB.
    package static let maxBytes = 6 << 20

    /// The definition of `routes`, their lookup table built.
    /// - Throws: ``APIDefinitionError`` `conflict` when two routes answer the same requests,
    ///   `refused` for a template that is not one.
    package init(
        routes: [APIRoute], schemes: [String: APISecurityScheme], cors: CORSConfiguration?, basePath: String, apiKeySource: APIKeySource
    ) throws(APIDefinitionError) {
        self.table = try RouteTable(routes.map { ($0.method, $0.template) })
        self.routes = routes
        self.schemes = schemes
        self.cors = cors
        self.basePath = basePath
        self.apiKeySource = apiKeySource
    }

    /// The route `method` and `path` (without the query) reach, with its path parameters; nil
    /// when none does (API Gateway answers 403 `Missing Authentication Token`). The path is
    /// read decoded, a `%2F` a separator like `/`, so the route is
    /// the one for the path the upstream serves. Parameters are decoded.
    package func route(_ method: HTTPRequest.Method, _ path: Substring) -> (route: APIRoute, parameters: [String: String])? {
        routeIndex(method, path).map { (routes[$0.index], $0.parameters) }
    }

    /// ``route(_:_:)`` as the route's position in ``routes``. The path may go on with its
    /// query: it ends at the first `?` or `#`.
    package func routeIndex(_ method: HTTPRequest.Method, _ path: Substring) -> (index: Int, parameters: [String: String])? {
        var path = path
        return path.withUTF8 { routeIndex(method, $0) }
    }

    /// ``routeIndex(_:_:)`` on the path's bytes: one pass each to find its end, its base path
    /// and whether it needs decoding, then the table's walk over the same bytes.
    private func routeIndex(_ method: HTTPRequest.Method, _ target: UnsafeBufferPointer<UInt8>) -> (index: Int, parameters: [String: String])? {
        let end = target.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? target.count
        let base = basePath.utf8
        guard end >= base.count, target[..<base.count].elementsEqual(base) else { return nil }
        let rest = UnsafeBufferPointer(rebasing: target[base.count..<end])
        guard rest.isEmpty || rest[0] == UInt8(ascii: "/") else { return nil }
        guard rest.contains(UInt8(ascii: "%")) else { return table.match(method, rest).map { ($0.index, $0.parameters) } }
        // Decoded once into segments that hold no `/`, joined again: the table reads `/`s only.
        var decoded = RequestPath.segments(String(decoding: rest, as: UTF8.self)).joined(separator: "/")
        return decoded.withUTF8 { table.match(method, $0) }.map { ($0.index, $0.parameters) }
    }
}

/// Where a route's API key comes from.
package enum APIKeySource: Sendable, Equatable {
    /// The `x-api-key` header.
    case header
    /// The `usageIdentifierKey` of the route's request authorizer's answer.
    case authorizer
}

/// One operation of the definition.
package struct APIRoute: Sendable {
    /// The route with these values.
    package init(method: HTTPRequest.Method?, template: String, security: [[SecurityRequirement]], integration: HTTPProxyIntegration) {
        self.method = method
        self.template = template
        self.security = security
        self.integration = integration
    }

    /// The method, or nil for `x-amazon-apigateway-any-method`.
    package let method: HTTPRequest.Method?
    /// The path template (`/pets/{id}`, `/files/{proxy+}`).
    package let template: String
    /// Alternatives (any one suffices), each a set of schemes that must all pass with their
    /// scopes; empty: no authorization.
    package let security: [[SecurityRequirement]]
    /// Where allowed requests go.
    package let integration: HTTPProxyIntegration

    /// `GET /pets/{id}`, `ANY /{proxy+}`: how logs and metrics name the route (never the raw path).
    package var name: String { "\(method?.rawValue ?? "ANY") \(template)" }
}

/// A scheme an operation requires, with the scopes a token must carry for it.
package struct SecurityRequirement: Sendable, Equatable {
    /// The requirement with these values.
    package init(scheme: String, scopes: [String]) {
        self.scheme = scheme
        self.scopes = scopes
    }

    /// The scheme's name in `components.securitySchemes`.
    package let scheme: String
    /// The OAuth scopes required (JWT and Cognito schemes).
    package let scopes: [String]
}

/// The ways a request proves itself, as API Gateway's extensions name them.
package enum APISecurityScheme: Sendable, Equatable {
    /// `x-amazon-apigateway-authtype: awsSigv4`: SigV4 or SigV4a.
    case sigv4
    /// An API key in `x-api-key` (`type: apiKey, in: header`).
    case apiKey
    /// A JWT from `issuer` for one of `audiences` (HTTP APIs' `jwt` authorizer; Cognito user
    /// pools give their pool's issuer and, as API Gateway does, no audience check).
    case jwt(issuer: String, audiences: [String])
    /// A Lambda-style authorizer reached over HTTP.
    case requestAuthorizer(RequestAuthorizerSettings)
}

/// `x-amazon-apigateway-authorizer` of type `request` or `token`, its Lambda over HTTP.
package struct RequestAuthorizerSettings: Sendable, Equatable {
    /// The settings with these values.
    package init(type: String, uri: String, identitySources: [String], ttlSeconds: Int, payloadFormat: String, simpleResponses: Bool) {
        self.type = type
        self.uri = uri
        self.identitySources = identitySources
        self.ttlSeconds = ttlSeconds
        self.payloadFormat = payloadFormat
        self.simpleResponses = simpleResponses
    }

    /// `request` or `token`.
    package let type: String
    /// The authorizer's HTTP(S) URL.
    package let uri: String
    /// Where the identity comes from (`method.request.header.Auth`, `$request.header.Auth`).
    package let identitySources: [String]
    /// How long a decision is kept (0: not kept).
    package let ttlSeconds: Int
    /// `1.0` or `2.0`.
    package let payloadFormat: String
    /// 2.0's `{"isAuthorized": …}` answers.
    package let simpleResponses: Bool
}

/// `x-amazon-apigateway-integration` of type `http_proxy`.
package struct HTTPProxyIntegration: Sendable, Equatable {
    /// The integration with these values.
    package init(uri: String, requestParameters: [ParameterMapping]) {
        self.uri = uri
        self.requestParameters = requestParameters
    }

    /// The upstream URL, with `{param}` path parameters to fill.
    package let uri: String
    /// `requestParameters`: each integration target (`integration.request.header.X`) and its
    /// source (`context.authorizer.claims.email`, `method.request.header.Y`, `'literal'`).
    package let requestParameters: [ParameterMapping]
}

/// One `requestParameters` entry.
package struct ParameterMapping: Sendable, Equatable {
    /// The mapping with these values.
    package init(target: Target, source: String) {
        self.target = target
        self.source = source
    }

    /// Where the value goes.
    package enum Target: Sendable, Equatable {
        case header(String), querystring(String), path(String)
    }
    /// Where the value goes.
    package let target: Target
    /// Where it comes from, as written.
    package let source: String
}

/// `x-amazon-apigateway-cors`.
package struct CORSConfiguration: Sendable, Equatable {
    /// The configuration with these values.
    package init(allowOrigins: [String], allowMethods: [String], allowHeaders: [String], exposeHeaders: [String], maxAge: Int?, allowCredentials: Bool) {
        self.allowOrigins = allowOrigins
        self.allowMethods = allowMethods
        self.allowHeaders = allowHeaders
        self.exposeHeaders = exposeHeaders
        self.maxAge = maxAge
        self.allowCredentials = allowCredentials
    }

    /// Origins allowed (`*` for any).
    package let allowOrigins: [String]
    /// Methods allowed (`*` for any).
    package let allowMethods: [String]
    /// Request headers allowed (`*` for any).
    package let allowHeaders: [String]
    /// Response headers exposed.
    package let exposeHeaders: [String]
    /// `Access-Control-Max-Age`, when given.
    package let maxAge: Int?
    /// `Access-Control-Allow-Credentials: true`.
    package let allowCredentials: Bool
}

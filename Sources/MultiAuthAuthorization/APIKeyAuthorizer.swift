public import HTTPTypes
public import MultiAuthCore
public import MultiAuthSigV4

/// API_KEY: `x-api-key`, read from its source for every request.
public struct APIKeyAuthorizer: RequestAuthorizer {
    let key: SecretSource

    /// Creates an authorizer.
    public init(key: SecretSource) { self.key = key }

    public func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
        AuthorizedRequest(request: try Self.request(request, key: try await key.read()), body: body)
    }

    /// The request with `x-api-key` set, when the key is fixed.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? {
        key.fixedValue.map { key in Result { () throws(AuthorizationError) in try Self.request(request, key: key) } }
    }

    private static func request(_ request: HTTPRequest, key: String) throws(AuthorizationError) -> HTTPRequest {
        var request = request
        try request.headerFields.setSecret(.apiKey, key, what: "the API key")
        return request
    }
}

/// AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT and AWS_LAMBDA: `Authorization: <token>`
/// (the raw token, AppSync's convention), or `Bearer <token>` when asked.
public struct TokenAuthorizer: RequestAuthorizer {
    let token: SecretSource
    let bearer: Bool

    /// Creates an authorizer.
    public init(token: SecretSource, bearer: Bool = false) {
        self.token = token
        self.bearer = bearer
    }

    public func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
        AuthorizedRequest(request: try self.request(request, token: try await token.read()), body: body)
    }

    /// The request with `Authorization` set, when the token is fixed.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? {
        token.fixedValue.map { token in Result { () throws(AuthorizationError) in try self.request(request, token: token) } }
    }

    private func request(_ request: HTTPRequest, token: String) throws(AuthorizationError) -> HTTPRequest {
        var request = request
        try request.headerFields.setSecret(.authorization, bearer ? "Bearer \(token)" : token, what: "the token")
        return request
    }
}

extension HTTPField.Name {
    /// `x-api-key`, AppSync's and API Gateway's API key header.
    static let apiKey = HTTPField.Name("x-api-key")!
}

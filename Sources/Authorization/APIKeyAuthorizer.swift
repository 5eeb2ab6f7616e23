import HTTPTypes
import MultiAuthCore
import SigV4

/// API_KEY: `x-api-key`, read from its source for every request.
public struct APIKeyAuthorizer: RequestAuthorizer {
    let key: SecretSource

    /// Creates an authorizer.
    public init(key: SecretSource) { self.key = key }

    public func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
        var request = request
        try request.headerFields.setSecret(.apiKey, try await key.read(), what: "the API key")
        return AuthorizedRequest(request: request, body: body)
    }

    /// The request with `x-api-key` set, when the key is fixed.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? {
        guard let key = key.fixedValue else { return nil }
        var request = request
        do { try request.headerFields.setSecret(.apiKey, key, what: "the API key") } catch { return .failure(error) }
        return .success(request)
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
        var request = request
        let value = try await token.read()
        try request.headerFields.setSecret(.authorization, bearer ? "Bearer \(value)" : value, what: "the token")
        return AuthorizedRequest(request: request, body: body)
    }

    /// The request with `Authorization` set, when the token is fixed.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? {
        guard let value = token.fixedValue else { return nil }
        var request = request
        do { try request.headerFields.setSecret(.authorization, bearer ? "Bearer \(value)" : value, what: "the token") } catch { return .failure(error) }
        return .success(request)
    }
}

extension HTTPField.Name {
    /// `x-api-key`, AppSync's and API Gateway's API key header.
    static let apiKey = HTTPField.Name("x-api-key")!
}

public import MultiAuthCore
public import MultiAuthHTTP

/// An OpenID Connect / OAuth 2.0 client for one provider: discovery, the authorization-code
/// flow with PKCE, the device authorization grant, client credentials, refresh (with
/// rotation) and revocation. ID tokens are validated against the provider's keys.
///
/// ```swift
/// let oidc = try await OpenIDConnectClient.discover(.init(issuer: issuer, clientId: "cli"), http: CurlHTTPClient())
/// let tokens = try await oidc.clientCredentials()
/// ```
public struct OpenIDConnectClient: TokenRefresher {
    /// The provider and client.
    public let configuration: OIDCConfiguration
    /// The provider's discovery document.
    public let metadata: ProviderMetadata
    let keys: JSONWebKeySet?
    let oauth: OAuthHTTP
    let clock: TimeSource

    /// Reads `ISSUER/.well-known/openid-configuration` and the provider's keys.
    /// - Throws: ``TokenError/malformedResponse(provider:problem:)`` for a document that is not
    ///   JSON, lacks a field, or names another issuer; ``TokenError/unreachable(provider:problem:)``.
    public static func discover(
        _ configuration: OIDCConfiguration, http: any HTTPSender, clock: TimeSource = .system
    ) async throws(TokenError) -> OpenIDConnectClient {
        let oauth = OAuthHTTP(http: http, provider: configuration.issuer)
        let url = configuration.issuer + "/.well-known/openid-configuration"
        let metadata = try await oauth.getJSON(ProviderMetadata.self, from: url, what: "the discovery document")
        let normalized = metadata.issuer.hasSuffix("/") ? String(metadata.issuer.dropLast()) : metadata.issuer
        guard normalized == configuration.issuer else {
            throw .malformedResponse(provider: configuration.issuer, problem: "the discovery document names issuer '\(metadata.issuer)'")
        }
        var keys: JSONWebKeySet?
        if let jwks = metadata.jwksURI { keys = try await oauth.getJSON(JSONWebKeySet.self, from: jwks, what: "the key set") }
        return OpenIDConnectClient(configuration: configuration, metadata: metadata, keys: keys, oauth: oauth, clock: clock)
    }

    /// The client credentials grant (RFC 6749 §4.4): tokens for the client itself.
    public func clientCredentials() async throws(TokenError) -> AuthTokens {
        let scope = configuration.scope.split(separator: " ").filter { $0 != "openid" && $0 != "offline_access" }.joined(separator: " ")
        var form = [("grant_type", "client_credentials")]
        if !scope.isEmpty { form.append(("scope", scope)) }
        return try await tokenRequest(form, nonce: nil)
    }

    /// The refresh-token grant. A rotated refresh token replaces the old one; a provider that
    /// answers `invalid_grant` (revoked or expired) yields a "log in again" error.
    public func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens {
        guard let refreshToken = tokens.refreshToken else { throw .loginRequired(name: "", reason: "no refresh token") }
        return try await tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], nonce: nil)
    }

    /// Revokes the refresh token (else the access token) at the RFC 7009 endpoint, when the
    /// provider advertises one. Returns false when it does not.
    @discardableResult
    public func revoke(_ tokens: AuthTokens) async throws(TokenError) -> Bool {
        guard let endpoint = metadata.revocationEndpoint else { return false }
        let (token, hint) = tokens.refreshToken.map { ($0, "refresh_token") } ?? (tokens.accessToken, "access_token")
        let result = try await oauth.postForm(
            EmptyResponse.self, to: endpoint, form: [("token", token), ("token_type_hint", hint)], client: clientAuthentication, secrets: [token])
        if case .failure(let failure) = result { throw .service(provider: configuration.issuer, code: failure.code, message: failure.message) }
        return true
    }

    var clientAuthentication: ClientAuthentication { ClientAuthentication(configuration: configuration, metadata: metadata) }

    struct TokenResponse: Decodable {
        let access_token: String
        let token_type: String?
        let expires_in: Int64?
        let refresh_token: String?
        let id_token: String?
    }

    /// POSTs to the token endpoint; validates an ID token when one comes back.
    func tokenRequest(_ form: [(String, String)], nonce: String?, secrets: [String] = []) async throws(TokenError) -> AuthTokens {
        let result = try await oauth.postForm(
            TokenResponse.self, to: metadata.tokenEndpoint, form: form, client: clientAuthentication, secrets: form.map(\.1) + secrets)
        switch result {
        case .failure(let failure): throw mapped(failure)
        case .success(let response):
            if let idToken = response.id_token {
                let validator = try validator()
                do throws(InvalidTokenError) { try validator.validate(idToken, nonce: nonce) } catch { throw TokenError(error) }
            }
            return AuthTokens(
                idToken: response.id_token, accessToken: response.access_token, refreshToken: response.refresh_token,
                expiresAt: Int64(clock.now()) + (response.expires_in ?? 3600))
        }
    }

    func validator() throws(TokenError) -> IDTokenValidator {
        guard let keys else { throw .invalidToken(reason: "the provider publishes no jwks_uri, so its ID token cannot be checked") }
        return IDTokenValidator(issuer: metadata.issuer, clientId: configuration.clientId, keys: keys, clock: clock)
    }

    func mapped(_ failure: OAuthHTTP.OAuthFailure) -> TokenError {
        switch failure.code {
        case "invalid_client", "unauthorized_client": .notAuthorized(provider: configuration.issuer, message: failure.message)
        case "access_denied": .accessDenied(provider: configuration.issuer, message: failure.message)
        case "expired_token": .deviceCodeExpired
        case "invalid_request", "invalid_scope": .invalidParameter(provider: configuration.issuer, message: failure.message)
        default: .service(provider: configuration.issuer, code: failure.code, message: failure.message)
        }
    }
}

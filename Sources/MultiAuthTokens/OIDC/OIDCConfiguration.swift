
/// Which OpenID provider and client to sign in with.
public struct OIDCConfiguration: Sendable, Codable, Equatable {
    /// The issuer URL; discovery reads `ISSUER/.well-known/openid-configuration`.
    public var issuer: String
    /// The client id.
    public var clientId: String
    /// The client secret for confidential clients.
    public var clientSecret: String?
    /// The scopes to ask for (space-separated).
    public var scope: String

    /// - Parameters:
    ///   - issuer: the provider's issuer URL, without a trailing slash.
    ///   - clientId: the registered client.
    ///   - clientSecret: for a confidential client.
    ///   - scope: default `openid profile email offline_access` (many providers issue a
    ///     refresh token only with `offline_access`).
    public init(issuer: String, clientId: String, clientSecret: String? = nil, scope: String = "openid profile email offline_access") {
        self.issuer = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.scope = scope
    }
}

/// The provider's discovery document (OpenID Connect Discovery 1.0), the fields used here.
public struct ProviderMetadata: Sendable, Codable, Equatable {
    /// Must equal the configured issuer.
    public let issuer: String
    /// Where the browser goes for the authorization-code flow.
    public let authorizationEndpoint: String?
    /// Where codes, refresh tokens and client credentials become tokens.
    public let tokenEndpoint: String
    /// The provider's signing keys.
    public let jwksURI: String?
    /// RFC 8628's device authorization endpoint, when the provider has one.
    public let deviceAuthorizationEndpoint: String?
    /// RFC 7009's revocation endpoint, when the provider has one.
    public let revocationEndpoint: String?
    /// PKCE methods the provider supports.
    public let codeChallengeMethodsSupported: [String]?
    /// How the client may authenticate at the token endpoint.
    public let tokenEndpointAuthMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
    }
}

public import MultiAuthCore

/// Who a verified request came from, and how it proved it.
public struct Principal: Sendable, Equatable, CustomStringConvertible {
    /// The mode that succeeded, as outbound code names it: `AWS_IAM` for a SigV4 or SigV4a
    /// signature, `API_KEY`, and for a JWT `AMAZON_COGNITO_USER_POOLS` when a Cognito user
    /// pool issued it, else `OPENID_CONNECT` (``AuthMode/forTokens(issuedBy:)``).
    public let mode: AuthMode
    /// The access key id, the API key's name, or the JWT's `sub`.
    public let name: String
    /// A JWT's claims that are strings (an array of strings joined by spaces), for a gateway
    /// that maps them upstream or checks `scope`; empty for other modes.
    public let claims: [String: String]
    /// The API key a request authorizer named for usage plans (its `usageIdentifierKey`): a
    /// secret, never in ``description``.
    package var usageIdentifierKey: String?

    /// Creates a principal.
    public init(mode: AuthMode, name: String, claims: [String: String] = [:]) {
        self.mode = mode
        self.name = name
        self.claims = claims
    }

    /// `AWS_IAM AKID…`: the mode and the name, neither of them a secret.
    public var description: String { "\(mode.rawValue) \(name)" }
}

extension AuthMode {
    /// The mode of tokens from `issuer`: a Cognito user pool's issuer is
    /// `https://cognito-idp.REGION.amazonaws.com/POOL`; any other is an OpenID Connect provider.
    public static func forTokens(issuedBy issuer: String) -> AuthMode {
        let host = issuer.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        return issuer.hasPrefix("https://cognito-idp.") && host.hasSuffix(".amazonaws.com") ? .amazonCognitoUserPools : .openIDConnect
    }

    /// True for the modes that present a JWT.
    var presentsJWT: Bool { self == .amazonCognitoUserPools || self == .openIDConnect }
}

public import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tokens of one login: what a user pool or an OpenID provider returned.
///
/// `description` never shows a token; use ``claims(of:)`` for what is safe to display.
public struct AuthTokens: Sendable, Codable, Equatable, RedactedDescribing {
    /// The OpenID Connect ID token (a JWT), when the provider issued one.
    public var idToken: String?
    /// The access token (a JWT for Cognito; any string for OIDC).
    public var accessToken: String
    /// The refresh token, when the provider issued one.
    public var refreshToken: String?
    /// When the access token (and ID token) expire, in seconds since 1970.
    public var expiresAt: Int64

    /// Tokens as a provider returned them.
    public init(idToken: String?, accessToken: String, refreshToken: String?, expiresAt: Int64) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Which token to send.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// The ID token (what AppSync's user-pool mode expects).
        case id
        /// The access token.
        case access
    }

    /// The token of `kind`.
    /// - Throws: ``TokenError/invalidToken(reason:)`` when the provider issued no ID token.
    public func token(_ kind: Kind) throws(TokenError) -> String {
        switch kind {
        case .access: return accessToken
        case .id:
            guard let idToken else { throw .invalidToken(reason: "the provider issued no ID token, only an access token") }
            return idToken
        }
    }

    /// The claims of the token of `kind`, decoded without checking its signature: for
    /// display and expiry only.
    public func claims(of kind: Kind) throws(TokenError) -> JWTClaims {
        let text = try token(kind)
        do throws(InvalidTokenError) { return try JSONWebToken(parsing: text).claims } catch { throw TokenError(error) }
    }

    /// Replaces what a refresh returned, keeping the old refresh token when no new one came
    /// (Cognito never rotates it; OIDC providers may).
    public func refreshed(with new: AuthTokens) -> AuthTokens {
        AuthTokens(
            idToken: new.idToken ?? idToken, accessToken: new.accessToken, refreshToken: new.refreshToken ?? refreshToken,
            expiresAt: new.expiresAt)
    }

    public var description: String {
        "AuthTokens(id: \(Redaction.secret(idToken)), access: \(Redaction.placeholder), "
            + "refresh: \(Redaction.secret(refreshToken)), expiresAt: \(expiresAt))"
    }
}

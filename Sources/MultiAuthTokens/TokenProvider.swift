// Server-side JWT checking lives in JSONWebTokens, apart from sign-in; the tokens a sign-in
// returns are checked with it, so its types are part of this module's API.
import MultiAuthCore
@_exported import MultiAuthJSONWebTokens

/// Gives fresh tokens. Implementations are async and safe to call from any task; none
/// blocks a thread while a token is fetched.
public protocol TokenProvider: Sendable {
    /// Tokens valid for at least the provider's refresh margin, refreshing first if needed.
    func currentTokens() async throws(TokenError) -> AuthTokens
}

extension TokenProvider {
    /// The token of `kind` with its expiry.
    public func token(_ kind: AuthTokens.Kind = .id) async throws(TokenError) -> (value: String, expiresAt: Int64) {
        let tokens = try await currentTokens()
        return (try tokens.token(kind), tokens.expiresAt)
    }
}

/// Turns a refresh token into new tokens: Cognito's REFRESH_TOKEN_AUTH or the OAuth
/// refresh-token grant.
public protocol TokenRefresher: Sendable {
    /// New tokens for `tokens.refreshToken`.
    /// - Throws: ``TokenError/loginRequired(name:reason:)`` (or an error whose
    ///   ``TokenError`` refuses the refresh token) when only a new login helps.
    func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens
}

/// A token provider that always hands out the same tokens (tests, or a token given on the
/// command line). It fails once they have expired.
public struct StaticTokenProvider: TokenProvider {
    private let tokens: AuthTokens

    /// Provides `tokens` until they expire.
    public init(_ tokens: AuthTokens) { self.tokens = tokens }

    /// A token given as is (on a command line, by a gateway): sent as both the id and the
    /// access token, never refreshed, and never expiring here (its expiry is the server's
    /// business).
    public static func fixed(_ token: String) -> StaticTokenProvider {
        StaticTokenProvider(AuthTokens(idToken: token, accessToken: token, refreshToken: nil, expiresAt: Int64.max / 2))
    }

    public func currentTokens() async throws(TokenError) -> AuthTokens {
        guard Double(tokens.expiresAt) > TimeSource.system.now() else { throw .invalidToken(reason: "the token expired at \(tokens.expiresAt)") }
        return tokens
    }
}

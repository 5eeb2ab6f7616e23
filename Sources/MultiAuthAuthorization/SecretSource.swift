public import MultiAuthCore
public import MultiAuthTokens

/// A value read on every request, so rotation takes effect at once (API keys, tokens).
public struct SecretSource: Sendable {
    let read: @Sendable () async throws(AuthorizationError) -> String
    /// The value of a ``fixed(_:)`` source, which can be had without waiting.
    let fixedValue: String?

    /// A source that calls `read` each time.
    public init(_ read: @escaping @Sendable () async throws(AuthorizationError) -> String) {
        self.read = read
        fixedValue = nil
    }

    private init(fixed value: String) {
        read = { value }
        fixedValue = value
    }

    /// A fixed value.
    public static func fixed(_ value: String) -> SecretSource { SecretSource(fixed: value) }

    /// The current token of `kind` from a token provider (refreshed ahead of expiry by a
    /// ``RefreshingTokenProvider``), for the user-pool, OIDC and Lambda modes.
    public static func token(from provider: any TokenProvider, kind: AuthTokens.Kind = .id) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            do throws(TokenError) {
                let token = try await provider.token(kind)
                return token.value
            } catch { throw .tokenUnavailable(error.description) }
        }
    }
}

extension SecretSource: RedactedDescribing {
    /// Says whether the value is fixed, never what it is.
    public var description: String { fixedValue == nil ? "SecretSource(read on each request)" : "SecretSource(fixed \(Redaction.placeholder))" }
}

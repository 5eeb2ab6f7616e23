public import Logging
public import MultiAuthCore

/// Wraps tokens and a ``TokenRefresher`` on the shared `ExpiringValueCache`: hands out the
/// current tokens while they have more than `refreshMargin` left, and otherwise
/// refreshes them with exactly one refresh in flight, however many callers are waiting.
/// Refreshed tokens are kept in memory before they are passed to `persist` (the credential
/// store), so a rotated refresh token is never lost to a failed save. When a refresh fails
/// for a transient reason (the provider unreachable or throttling) and the current tokens
/// have not yet expired, callers get the current tokens.
///
/// The fast path is one lock and a comparison, so it never waits on another task.
public final class RefreshingTokenProvider: TokenProvider {
    /// Called with the tokens after every successful refresh.
    public typealias Persist = @Sendable (AuthTokens) async throws(TokenError) -> Void

    private let cache: ExpiringValueCache<AuthTokens, TokenError>

    /// - Parameters:
    ///   - tokens: the tokens from the login or the store.
    ///   - refresher: how to refresh them.
    ///   - name: the login's name, for "log in again" messages.
    ///   - refreshMargin: refresh this long before expiry (default 120 s, as Amplify does).
    ///   - persist: where refreshed tokens go (the store), if anywhere.
    ///   - clock: the time expiry is measured against.
    ///   - logger: gets a debug line for each refresh and what triggered it.
    public init(
        tokens: AuthTokens, refresher: any TokenRefresher, name: String = "default", refreshMargin: Duration = .seconds(120),
        persist: Persist? = nil, clock: TimeSource = .system, logger: Logger = .disabled
    ) {
        let refresh: ExpiringValueCache<AuthTokens, TokenError>.Refresh = { current async throws(TokenError) in
            try await Self.refresh(current?.value, with: refresher, name: name)
        }
        var save: ExpiringValueCache<AuthTokens, TokenError>.AfterRefresh?
        if let persist {
            save = { fresh async throws(TokenError) in
                do throws(TokenError) { try await persist(fresh.value) } catch {
                    throw .storage(UnderlyingError(error, context: "the refreshed tokens could not be saved"))
                }
            }
        }
        cache = ExpiringValueCache(
            initial: Expiring(tokens, expiresAt: Double(tokens.expiresAt)),
            advisoryWindow: refreshMargin, mandatoryWindow: refreshMargin, clock: clock, logger: logger,
            keepsCurrent: { $0.isTransient }, afterRefresh: save, refresh: refresh)
    }

    private static func refresh(_ tokens: AuthTokens?, with refresher: any TokenRefresher, name: String) async throws(TokenError) -> Expiring<AuthTokens> {
        guard let tokens, tokens.refreshToken != nil else { throw .loginRequired(name: name, reason: "no refresh token was issued") }
        do throws(TokenError) {
            let fresh = tokens.refreshed(with: try await refresher.refresh(tokens))
            return Expiring(fresh, expiresAt: Double(fresh.expiresAt))
        } catch {
            throw error.kind.refusesRefreshToken ? .loginRequired(name: name, reason: error.description) : error
        }
    }

    public func currentTokens() async throws(TokenError) -> AuthTokens {
        try await cache.value()
    }

    /// The tokens held now, without refreshing.
    public var heldTokens: AuthTokens {
        guard let held = cache.held else { preconditionFailure("a RefreshingTokenProvider always holds tokens") }
        return held.value
    }
}

extension TokenError {
    /// True for failures that may pass (the provider unreachable, throttling, a timeout).
    var isTransient: Bool {
        switch self.kind {
        case .unreachable, .tooManyRequests, .timedOut: true
        default: false
        }
    }
}

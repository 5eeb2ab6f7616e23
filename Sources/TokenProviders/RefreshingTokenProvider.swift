import Synchronization

/// Wraps tokens and a ``TokenRefresher``: hands out the current tokens while they have more
/// than `refreshMargin` seconds left, and otherwise refreshes them with exactly one refresh in
/// flight, however many callers are waiting. Refreshed tokens are passed to `persist` (the
/// credential store) before any caller sees them.
///
/// The fast path is one lock and a comparison, so it never waits on another task. A caller
/// that arrives during a refresh awaits the same refresh; none starts another.
public final class RefreshingTokenProvider: TokenProvider {
    /// Called with the tokens after every successful refresh.
    public typealias Persist = @Sendable (AuthTokens) async throws(TokenError) -> Void

    private struct State: Sendable {
        var tokens: AuthTokens
        var inFlight: Task<Result<AuthTokens, TokenError>, Never>?
    }

    private let state: Mutex<State>
    private let refresher: any TokenRefresher
    private let refreshMargin: Int64
    private let persist: Persist?
    private let now: @Sendable () -> Int64
    private let name: String

    /// - Parameters:
    ///   - tokens: the tokens from the login or the store.
    ///   - refresher: how to refresh them.
    ///   - name: the login's name, for "log in again" messages.
    ///   - refreshMargin: refresh this many seconds before expiry (default 120, as Amplify does).
    ///   - persist: where refreshed tokens go (the store), if anywhere.
    ///   - now: the clock, in seconds since 1970.
    public init(
        tokens: AuthTokens, refresher: any TokenRefresher, name: String = "default", refreshMargin: Int64 = 120,
        persist: Persist? = nil, now: @escaping @Sendable () -> Int64 = unixNow
    ) {
        state = Mutex(State(tokens: tokens))
        self.refresher = refresher
        self.name = name
        self.refreshMargin = refreshMargin
        self.persist = persist
        self.now = now
    }

    public func currentTokens() async throws(TokenError) -> AuthTokens {
        let deadline = now() + refreshMargin
        let next: Next = state.withLock { state in
            if state.inFlight == nil, state.tokens.expiresAt > deadline { return .fresh(state.tokens) }
            if let running = state.inFlight { return .wait(running) }
            let task = startRefresh(from: state.tokens)
            state.inFlight = task
            return .wait(task)
        }
        switch next {
        case .fresh(let tokens): return tokens
        case .wait(let task): return try await task.value.get()
        }
    }

    private enum Next {
        case fresh(AuthTokens)
        case wait(Task<Result<AuthTokens, TokenError>, Never>)
    }

    /// The tokens held now, without refreshing.
    public var heldTokens: AuthTokens { state.withLock { $0.tokens } }

    private func startRefresh(from tokens: AuthTokens) -> Task<Result<AuthTokens, TokenError>, Never> {
        Task { [refresher, persist, name] in
            let fresh: AuthTokens
            do throws(TokenError) {
                guard tokens.refreshToken != nil else { throw .loginRequired(name: name, reason: "no refresh token was issued") }
                fresh = tokens.refreshed(with: try await refresher.refresh(tokens))
            } catch {
                self.state.withLock { $0.inFlight = nil }
                return .failure(error.refusesRefreshToken ? .loginRequired(name: name, reason: error.description) : error)
            }
            // Keep the new tokens in memory even if saving them fails: with rotation, the old
            // refresh token is already dead, and this process can still use the new one.
            self.state.withLock { state in
                state.tokens = fresh
                state.inFlight = nil
            }
            do throws(TokenError) {
                try await persist?(fresh)
            } catch {
                return .failure(.storage("the refreshed tokens could not be saved: \(error)"))
            }
            return .success(fresh)
        }
    }
}

import IntegrationSupport
import MultiAuthCore
import MultiAuthLogins
import MultiAuthStore
import MultiAuthTokens
import Synchronization
import Testing

/// The refresh wrapper's own rules. The refresher here is a stand-in (it numbers its
/// answers): the single-flight and rotation behaviour against a real provider is covered by
/// OIDCPeerTests; these cases need failures a real provider cannot be made to produce on cue.
@Suite(.timeLimit(.minutes(5))) struct RefreshingTokenProviderTests {
    final class NumberingRefresher: TokenRefresher {
        let calls = Mutex(0)
        func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens {
            let number = calls.withLock { value in
                value += 1
                return value
            }
            return AuthTokens(idToken: "id-\(number)", accessToken: "access-\(number)", refreshToken: "refresh-\(number)", expiresAt: 10_000)
        }
    }

    static let stale = AuthTokens(idToken: "id-0", accessToken: "access-0", refreshToken: "refresh-0", expiresAt: 1_000)

    @Test func aFailedSaveKeepsTheNewTokensInMemoryAndSaysSo() async throws {
        let refresher = NumberingRefresher()
        let provider = RefreshingTokenProvider(
            tokens: Self.stale, refresher: refresher, persist: { _ throws(TokenError) in throw .storage(UnderlyingError(StoreError.writeFailed(path: "/x/store", reason: "disk full"))) }, clock: TimeSource { 950 })
        await #expect(throws: TokenError.self) { try await provider.currentTokens() }
        #expect(provider.heldTokens.refreshToken == "refresh-1")
        // The next call is served from memory: no second refresh.
        #expect(try await provider.currentTokens().accessToken == "access-1")
        #expect(refresher.calls.withLock { $0 } == 1)
    }

    @Test func noRefreshTokenMeansLogInAgain() async throws {
        let tokens = AuthTokens(idToken: nil, accessToken: "a", refreshToken: nil, expiresAt: 1_000)
        let provider = RefreshingTokenProvider(tokens: tokens, refresher: NumberingRefresher(), name: "ci", clock: TimeSource { 999 })
        await #expect {
            try await provider.currentTokens()
        } throws: { error in
            guard case .loginRequired(let name, _)? = (error as? TokenError)?.kind else { return false }
            return name == "ci"
        }
    }

    @Test func aTransientFailureInsideTheMarginServesTheStillValidTokens() async throws {
        final class Unreachable: TokenRefresher {
            func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens {
                throw .unreachable(provider: "test", problem: "connection refused")
            }
        }
        let provider = RefreshingTokenProvider(tokens: Self.stale, refresher: Unreachable(), clock: TimeSource { 950 })
        #expect(try await provider.currentTokens().accessToken == "access-0")  // 50 s left: kept
        let expired = RefreshingTokenProvider(tokens: Self.stale, refresher: Unreachable(), clock: TimeSource { 1_000 })
        await #expect(throws: TokenError.self) { try await expired.currentTokens() }
    }

    @Test func theMarginDecidesWhenToRefresh() async throws {
        let refresher = NumberingRefresher()
        let early = RefreshingTokenProvider(tokens: Self.stale, refresher: refresher, refreshMargin: .seconds(120), clock: TimeSource { 879 })
        #expect(try await early.currentTokens().accessToken == "access-0")  // 121 s left
        let due = RefreshingTokenProvider(tokens: Self.stale, refresher: refresher, refreshMargin: .seconds(120), clock: TimeSource { 880 })
        #expect(try await due.currentTokens().accessToken == "access-1")  // 120 s left
    }
}

/// Values that hold secrets print without them.
@Suite(.timeLimit(.minutes(5))) struct RedactionTests {
    @Test func secretsNeverAppearInDescriptions() throws {
        let secret = "s3cr3t-value-that-must-not-print"
        let tokens = AuthTokens(idToken: secret + "-id", accessToken: secret + "-access", refreshToken: secret + "-refresh", expiresAt: 1)
        let cognito = try CognitoUserPoolConfiguration(userPoolId: "us-east-1_x", clientId: "c", clientSecret: secret)
        let oidc = OIDCConfiguration(issuer: "https://i", clientId: "c", clientSecret: secret)
        let pkce = try PKCE()
        let texts = [
            "\(tokens)", String(reflecting: tokens), "\(cognito)", String(reflecting: oidc),
            "\(LoginRecord(provider: .cognito(cognito), flow: "srp", tokens: tokens))",
            String(reflecting: LoginRecord(provider: .oidc(oidc), flow: "pkce", tokens: tokens)), "\(pkce)",
        ]
        for text in texts {
            #expect(!text.contains(secret), "\(text)")
            #expect(!text.contains(pkce.verifier))
        }
    }
}

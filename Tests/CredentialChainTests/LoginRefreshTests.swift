import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthLogins
import MultiAuthStore
import MultiAuthTokens
import Synchronization
import Testing

/// Refreshing a saved login happens under the store's lock (issue 19, finding 3), against
/// nanoidp with strict refresh-token rotation: a spent refresh token is refused, so a login
/// refreshed twice from the same token, or whose rotated token was lost, breaks.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && Peers.oidcAvailable, Peers.reason)) struct LoginRefreshTests {
    /// Forwards to libcurl and counts token-endpoint refreshes.
    final class CountingSender: HTTPSender {
        let refreshes = Atomic<Int>(0)
        private let inner = CurlHTTPClient()

        func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
            if case .bytes(let bytes) = body, String(decoding: bytes, as: UTF8.self).contains("grant_type=refresh_token") {
                refreshes.add(1, ordering: .relaxed)
            }
            return try await inner.send(request, body: body, responseBody: responseBody)
        }
    }

    /// A device-flow login (it comes with a refresh token) saved as `name` in `store`.
    static func deviceLogin(_ store: TempStore, name: String = "default") async throws {
        let cli = try RunningCLI(
            ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcPublicClient, "--flow", "device", "--name", name]
                + store.arguments)
        let line = try #require(try await cli.waitForLine { $0.contains("enter the code") })
        let code = try #require(line.split(separator: " ").last.map(String.init))
        _ = try await Peers.python("scripts/peers/oidc_user.py", ["approve-device", Peers.oidcIssuer, code, Peers.oidcUser.0, Peers.oidcUser.1])
        let finished = try await cli.finish()
        try #require(finished.status == 0, "\(finished.stderr)")
    }

    static func logins(_ store: TempStore) -> LoginStore {
        LoginStore(store: CredentialStore(path: store.folder + "/store", keySource: .keyFile(path: store.folder + "/key")))
    }

    /// Two "processes" (two store handles, so two lock descriptors) whose tokens are due at
    /// once: one refresh reaches the provider, and both end with the same new tokens.
    @Test func concurrentRefreshesOfOneLoginSpendItsRefreshTokenOnce() async throws {
        let store = try await TempStore()
        try await Self.deviceLogin(store)
        let saved = try await Self.logins(store).load(name: "default")
        let sender = CountingSender()
        let first = Self.logins(store).provider(for: saved, name: "default", http: sender, refreshMargin: .seconds(7200))
        let second = Self.logins(store).provider(for: saved, name: "default", http: sender, refreshMargin: .seconds(7200))
        async let a = first.currentTokens()
        async let b = second.currentTokens()
        let (tokensA, tokensB) = try await (a, b)
        #expect(sender.refreshes.load(ordering: .relaxed) == 1)
        #expect(tokensA == tokensB && tokensA.refreshToken != saved.tokens.refreshToken)
        // What is stored is what they got, and it refreshes again; the provider really rotated:
        // the first refresh token is dead (checked last: nanoidp revokes the whole family when
        // a spent token comes back).
        let stored = try await Self.logins(store).load(name: "default")
        #expect(stored.tokens == tokensA)
        let token = try await CLI.run(["token", "--min-validity", "7200"] + store.arguments)
        #expect(token.status == 0, "\(token.stderr)")
        let client = try await OpenIDConnectClient.discover(
            OIDCConfiguration(issuer: Peers.oidcIssuer, clientId: Peers.oidcPublicClient), http: CurlHTTPClient())
        await #expect(throws: TokenError.self) { try await client.refresh(saved.tokens) }
    }

    /// The store locked by another process: `token` used to refresh first and then fail to
    /// save, losing the rotated refresh token ("log in again" next time). Now it refreshes
    /// only holding the lock, so a store locked until the command's time runs out spends
    /// nothing: the next run refreshes, and the one after with the saved new token.
    @Test func aLockedStoreSpendsNothing() async throws {
        let store = try await TempStore()
        try await Self.deviceLogin(store)
        let descriptor = open(store.folder + "/store.lock", O_RDWR | O_CREAT, 0o600)
        try #require(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        let blocked = try await CLI.run(["token", "--min-validity", "7200", "--max-time", "2"] + store.arguments)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        #expect(blocked.status == 28 && blocked.stderr.contains("timed out after 2 s"), "\(blocked.stderr)")
        let after = try await CLI.run(["token", "--min-validity", "7200"] + store.arguments)
        #expect(after.status == 0, "the refresh token was lost: \(after.stderr)")
        let again = try await CLI.run(["token", "--min-validity", "7200"] + store.arguments)
        #expect(again.status == 0, "the rotated refresh token was not saved: \(again.stderr)")
    }
}

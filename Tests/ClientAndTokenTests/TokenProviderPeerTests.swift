import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
@testable import MultiAuthTokens
import Synchronization
import Testing

/// An HTTP client that counts the requests it passes to the real one.
final class CountingHTTPClient: HTTPSender {
    let inner: any HTTPSender
    private let counts = Mutex<[String: Int]>([:])

    init(_ inner: any HTTPSender = CurlHTTPClient()) { self.inner = inner }

    func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
        counts.withLock { $0[request.wireURL, default: 0] += 1 }
        return try await inner.send(request, body: body, responseBody: responseBody)
    }

    func count(_ url: String) -> Int { counts.withLock { $0[url] ?? 0 } }
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
}

/// Cognito user pools against moto in server mode.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct CognitoPeerTests {
    let setup = Peers.setup
    let http = CurlHTTPClient()

    func authenticator(secret: Bool = false, wrongSecret: Bool = false) throws -> CognitoUserPoolAuthenticator {
        let setup = try #require(setup)
        let configuration = try CognitoUserPoolConfiguration(
            userPoolId: setup.userPoolId, clientId: secret ? setup.secretClientId : setup.clientId,
            clientSecret: secret ? (wrongSecret ? "not-the-secret" : setup.clientSecret) : nil, endpoint: Peers.moto)
        return CognitoUserPoolAuthenticator(configuration: configuration, http: http)
    }

    // moto has no USER_AUTH, and its CUSTOM_AUTH needs a Lambda trigger: those two flows are
    // tested against the Cognito stand-in (CognitoChallengeTests).
    @Test(arguments: [CognitoUserPoolAuthenticator.Flow.srp, .password])
    func signsInAndRefreshes(flow: CognitoUserPoolAuthenticator.Flow) async throws {
        let cognito = try authenticator()
        let tokens = try await cognito.signIn(username: "alice", password: Array("Str0ng-Passw0rd!".utf8), flow: flow)
        let claims = try tokens.claims(of: .id)
        #expect(claims.members["cognito:username"]?.stringValue == "alice")
        #expect(claims.audiences == [try #require(setup).clientId])
        #expect(tokens.expiresAt > Int64(TimeSource.system.now()) + 3000)
        let refreshed = try await cognito.refresh(tokens)
        #expect(refreshed.accessToken != tokens.accessToken)
        #expect(tokens.refreshed(with: refreshed).refreshToken == tokens.refreshToken)
    }

    @Test func srpWithAClientSecretSendsTheRightSecretHash() async throws {
        // moto checks SECRET_HASH on USER_SRP_AUTH and REFRESH_TOKEN_AUTH.
        let tokens = try await authenticator(secret: true).signIn(username: "alice", password: Array("Str0ng-Passw0rd!".utf8), flow: .srp)
        _ = try await authenticator(secret: true).refresh(tokens)
        await #expect {
            try await authenticator(secret: true, wrongSecret: true).signIn(username: "alice", password: Array("Str0ng-Passw0rd!".utf8))
        } throws: { error in
            guard case .notAuthorized(_, let message)? = (error as? TokenError)?.kind else { return false }
            return !message.contains(CognitoSecretHash.compute(username: "alice", clientId: setup?.secretClientId ?? "", clientSecret: "not-the-secret"))
        }
    }

    @Test func cognitoErrorsAreTyped() async throws {
        let cognito = try authenticator()
        let password = "Wr0ng-Passw0rd-\(UUID().uuidString)"
        do {
            _ = try await cognito.signIn(username: "alice", password: Array(password.utf8), flow: .password)
            Issue.record("a wrong password signed in")
        } catch {
            guard case .notAuthorized = error.kind else { Issue.record("got \(error)"); return }
            #expect(!error.description.contains(password))
        }
        await #expect(throws: TokenError.userNotFound(provider: "Cognito")) {
            try await cognito.signIn(username: "nobody-\(UUID().uuidString)", password: Array("x".utf8), flow: .password)
        }
        await #expect(throws: TokenError.userNotConfirmed(provider: "Cognito")) {
            try await cognito.signIn(username: "unconfirmed", password: Array("Str0ng-Passw0rd!".utf8), flow: .password)
        }
        await #expect(throws: TokenError.self) {
            try await cognito.refresh(AuthTokens(idToken: nil, accessToken: "x", refreshToken: "revoked-or-made-up", expiresAt: 0))
        }
    }

    @Test func userPoolTokensBecomeCognitoIdentityLogins() async throws {
        let setup = try #require(Peers.setup)
        let cognito = try authenticator()
        let tokens = try await cognito.signIn(username: "alice", password: Array("Str0ng-Passw0rd!".utf8), flow: .password)
        let logins = try cognito.configuration.identityLogins(tokens)
        #expect(logins == ["cognito-idp.us-east-1.amazonaws.com/\(setup.userPoolId)": try tokens.token(.id)])
        let identity = try CognitoIdentityCredentialsProvider(
            identityPoolId: setup.identityPoolId, region: "us-east-1", logins: logins, endpoint: ServiceEndpoint(url: Peers.moto),
            http: CurlHTTPClient())
        #expect(try await identity.credentials().credentials.accessKeyId == "TESTACCESSKEY12345")
    }

    @Test func newPasswordRequiredIsAnsweredOrReported() async throws {
        let cognito = try authenticator()
        let user = try await Peers.newCognitoUser("newbie", pool: try #require(Peers.setup).userPoolId)
        await #expect(throws: TokenError.newPasswordRequired(username: user)) {
            try await cognito.signIn(username: user, password: Array("Temp-Passw0rd!".utf8), flow: .password)
        }
        let tokens = try await cognito.signIn(username: user, password: Array("Temp-Passw0rd!".utf8), flow: .srp) { () throws(TokenError) -> [UInt8] in
            Array("N3w-Passw0rd-0!".utf8)
        }
        #expect(try tokens.claims(of: .id).displayName == user)
        _ = try await cognito.signIn(username: user, password: Array("N3w-Passw0rd-0!".utf8), flow: .password)
    }
}

/// OpenID Connect against nanoidp.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.oidcAvailable, Peers.oidcReason)) struct OIDCPeerTests {
    static func configuration(confidential: Bool = true) -> OIDCConfiguration {
        OIDCConfiguration(
            issuer: Peers.oidcIssuer, clientId: confidential ? Peers.oidcConfidentialClient : Peers.oidcPublicClient,
            clientSecret: confidential ? Peers.oidcClientSecret : nil)
    }

    /// A device-flow login approved by the helper that plays the user.
    static func deviceLogin(_ client: OpenIDConnectClient) async throws -> AuthTokens {
        let authorization = try await client.startDeviceAuthorization()
        _ = try await Peers.python(
            "scripts/peers/oidc_user.py", ["approve-device", Peers.oidcIssuer, authorization.userCode, Peers.oidcUser.0, Peers.oidcUser.1])
        return try await client.pollDeviceToken(authorization)
    }

    @Test func discoveryClientCredentialsAndBadSecret() async throws {
        let client = try await OpenIDConnectClient.discover(Self.configuration(), http: CurlHTTPClient())
        #expect(client.metadata.deviceAuthorizationEndpoint != nil)
        let tokens = try await client.clientCredentials()
        #expect(try tokens.claims(of: .access).subject == Peers.oidcConfidentialClient)
        var wrong = Self.configuration()
        wrong.clientSecret = "wrong-secret-value"
        let refused = try await OpenIDConnectClient.discover(wrong, http: CurlHTTPClient())
        await #expect {
            try await refused.clientCredentials()
        } throws: { error in
            guard case .notAuthorized? = (error as? TokenError)?.kind else { return false }
            return !"\(error)".contains("wrong-secret-value")
        }
    }

    @Test func deviceLoginRefreshRotatesAndRevocationForcesANewLogin() async throws {
        let client = try await OpenIDConnectClient.discover(Self.configuration(confidential: false), http: CurlHTTPClient())
        let tokens = try await Self.deviceLogin(client)
        #expect(try tokens.claims(of: .id).subject == Peers.oidcUser.0)
        let refreshed = tokens.refreshed(with: try await client.refresh(tokens))
        #expect(refreshed.refreshToken != tokens.refreshToken)
        // Rotation: the old refresh token is dead.
        let provider = RefreshingTokenProvider(tokens: tokens, refresher: client, name: "old", refreshMargin: .seconds(1_000_000))
        await #expect(throws: TokenError.self) { try await provider.currentTokens() }
        do { _ = try await provider.currentTokens() } catch {
            guard case .loginRequired(let name, _) = error.kind else { Issue.record("got \(error)"); return }
            #expect(name == "old")
        }
        // Revocation (RFC 7009): afterwards the refresh token is refused the same way.
        #expect(try await client.revoke(refreshed))
        let revoked = RefreshingTokenProvider(tokens: refreshed, refresher: client, name: "revoked", refreshMargin: .seconds(1_000_000))
        do {
            _ = try await revoked.currentTokens()
            Issue.record("a revoked refresh token still refreshed")
        } catch {
            guard case .loginRequired(let name, _) = error.kind else { Issue.record("got \(error)"); return }
            #expect(name == "revoked")
        }
    }

    @Test func refreshHappensAheadOfExpiryAndOnlyOnceFor200Callers() async throws {
        let counting = CountingHTTPClient()
        let client = try await OpenIDConnectClient.discover(Self.configuration(confidential: false), http: counting)
        let tokens = try await Self.deviceLogin(client)
        let tokenEndpoint = client.metadata.tokenEndpoint
        let before = counting.count(tokenEndpoint)

        // With an hour left and the default 2-minute margin: no refresh.
        let fresh = RefreshingTokenProvider(tokens: tokens, refresher: client)
        for _ in 0..<50 { _ = try await fresh.currentTokens() }
        #expect(counting.count(tokenEndpoint) == before)

        // The clock moved to 90 s before expiry: inside the margin, so 200 concurrent callers
        // share exactly one refresh, and the refreshed tokens are persisted once.
        let persisted = Mutex(0)
        let expiry = tokens.expiresAt
        let due = RefreshingTokenProvider(
            tokens: tokens, refresher: client, persist: { _ throws(TokenError) in persisted.withLock { $0 += 1 } }, clock: TimeSource { Double(expiry - 90) })
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<200 { group.addTask { try? await due.currentTokens().accessToken } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(counting.count(tokenEndpoint) == before + 1)
        #expect(persisted.withLock { $0 } == 1)
        #expect(Set(results.compactMap { $0 }).count == 1)
        #expect(results.allSatisfy { $0 != nil && $0 != tokens.accessToken })
    }

    @Test func aDeniedOrExpiredDeviceCodeStopsThePolling() async throws {
        let client = try await OpenIDConnectClient.discover(Self.configuration(confidential: false), http: CurlHTTPClient())
        let denied = try await client.startDeviceAuthorization()
        _ = try await Peers.python(
            "scripts/peers/oidc_user.py", ["approve-device", Peers.oidcIssuer, denied.userCode, Peers.oidcUser.0, Peers.oidcUser.1, "deny"])
        await #expect {
            try await client.pollDeviceToken(denied)
        } throws: { error in
            if case .accessDenied? = (error as? TokenError)?.kind { return true }
            return false
        }
        // A clock that jumps past the code's lifetime after the first poll: polling stops with "expired".
        let start = Int64(TimeSource.system.now())
        let reads = Mutex(0)
        let late = try await OpenIDConnectClient.discover(Self.configuration(confidential: false), http: CurlHTTPClient(), clock: TimeSource {
            reads.withLock { count in
                count += 1
                return Double(count <= 2 ? start : start + 100_000)
            }
        })
        let expiring = try await late.startDeviceAuthorization()
        await #expect(throws: TokenError.deviceCodeExpired) { try await late.pollDeviceToken(expiring) }
    }

    @Test func unreachableAndMalformedProvidersGiveTypedErrors() async throws {
        let closed = OIDCConfiguration(issuer: "http://127.0.0.1:9", clientId: "x")
        await #expect {
            try await OpenIDConnectClient.discover(closed, http: CurlHTTPClient())
        } throws: { error in
            if case .unreachable? = (error as? TokenError)?.kind { return true }
            return false
        }
        // The verifying API server answers /open/... with JSON that is no discovery document.
        let notOIDC = OIDCConfiguration(issuer: Peers.api + "/open", clientId: "x")
        await #expect {
            try await OpenIDConnectClient.discover(notOIDC, http: CurlHTTPClient())
        } throws: { error in
            if case .malformedResponse? = (error as? TokenError)?.kind { return true }
            return false
        }
    }
}

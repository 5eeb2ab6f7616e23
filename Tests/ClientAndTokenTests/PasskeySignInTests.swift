import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Testing

/// Passwordless USER_AUTH against the Cognito stand-in, whose relying party is the `fido2`
/// package's Fido2Server: a passkey made on a software authenticator (scripts/peers/
/// fido2_authenticator.py, reached through libfido2) and signed in with, an email code as the
/// only factor, and their faults. Each test has its own user and its own authenticator.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.cognito.isEmpty, Peers.reason)) struct PasskeySignInTests {
    /// A software authenticator on a socket of its own, and the log of what it was asked.
    final class SoftwareAuthenticator: Sendable {
        let folder: String
        let process: BackgroundProcess
        var device: String { "unix:" + folder + "/authenticator.sock" }

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-fido-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            process = try BackgroundProcess(
                URL(fileURLWithPath: Paths.python),
                Paths.pythonArguments + [Paths.repository.path + "/scripts/peers/fido2_authenticator.py", folder + "/authenticator.sock", "--log", folder + "/log"])
            try await RealtimePeer.wait("the software authenticator's socket", seconds: 20) { FileManager.default.fileExists(atPath: self.folder + "/authenticator.sock") }
        }

        /// The operations it performed, in order.
        var operations: [String] {
            ((try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])?["operation"]
            }
        }

        deinit {
            process.kill()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static func login(_ user: String, _ extra: [String], input: String? = nil, store: TempStore) async throws -> CLI.Run {
        try await CognitoChallengeTests.login(user, ["--flow", "user-auth"] + extra, input: input, store: store)
    }

    /// The pool's id token passes a gateway that checks the pool's keys, issuer and audience.
    static func gatewayAccepts(_ store: TempStore) async throws -> Bool {
        let token = try await CLI.run(["token", "--name", "ch"] + store.arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let pool = Peers.cognito + "/" + Peers.cognitoPool
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--jwks-url", pool + "/.well-known/jwks.json", "--issuer", pool,
            "--audience", Peers.cognitoClient,
        ])
        defer { _ = gateway.stop() }
        var request = try HTTPRequest(method: .get, wireURL: gateway.url + "/passkeys/whoami")
        request.headerFields[.authorization] = token
        let answered = try await CurlHTTPClient().send(request, body: .empty).head.status.code
        request.headerFields[.authorization] = String(token.dropLast(4)) + "AAAA"
        let forged = try await CurlHTTPClient().send(request, body: .empty).head.status.code
        return answered == 200 && forged == 401
    }

    /// Email code first (passwordless), a passkey registered after it, then a sign-in with the
    /// passkey alone: Fido2Server verified the registration and the assertion our client built,
    /// and the gateway takes both sign-ins' tokens.
    @Test func passkeyRegisteredThenUsedAndTokensPassTheGateway() async throws {
        let authenticator = try await SoftwareAuthenticator()
        let user = try await CognitoChallengeTests.user(["email": true])
        let store = try await TempStore()
        let byCode = try await Self.login(
            user, ["--challenge", "email-otp", "--mfa-code-command", CognitoChallengeTests.outbox(user), "--register-passkey", "--authenticator", authenticator.device],
            store: store)
        #expect(byCode.status == 0 && byCode.stderr.contains("A passkey is registered"), "\(byCode.stderr)")
        #expect(try await Self.gatewayAccepts(store))
        let byPasskey = try await Self.login(user, ["--challenge", "web-authn", "--authenticator", authenticator.device], store: store)
        #expect(byPasskey.status == 0, "\(byPasskey.stderr)")
        #expect(authenticator.operations == ["makeCredential", "getAssertion"])
        #expect(try await Self.gatewayAccepts(store))
        let offered = try await Self.login(user, ["--password-stdin"], input: CognitoChallengeTests.password + "\n", store: store)
        #expect(offered.status == 2 && offered.stderr.contains("email-otp, web-authn)"), "\(offered.stderr)")
        // botocore's serializer and parser for each passkey operation of the stand-in (the last deletes the passkey).
        let access = try await CLI.run(["token", "--name", "ch", "--type", "access"] + store.arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let botocore = try await Peers.oracle(
            "scripts/oracles/botocore_passkeys.py", arguments: [Peers.cognito + "/", Peers.cognitoClient, user, access], environment: [:])
        #expect(botocore == [
            "creation_rp": "auth.multiauth.test", "creation_challenge": "True", "bogus_credential": "InvalidParameterException", "listed": "1",
            "created_at_parsed": "datetime", "challenge": "WEB_AUTHN", "request_rp": "auth.multiauth.test", "bad_assertion": "NotAuthorizedException",
            "after_delete": "0",
        ])
        // The passkey deleted, the pool no longer offers it.
        let unchosen = try await Self.login(user, ["--password-stdin"], input: CognitoChallengeTests.password + "\n", store: store)
        #expect(unchosen.status == 2 && unchosen.stderr.contains("SELECT_CHALLENGE (password, password-srp, email-otp)"), "\(unchosen.stderr)")
    }

    /// A new user signed up with an email and no password, confirmed with the emailed code and
    /// signed in by ConfirmSignUp's session; botocore goes the same way through the stand-in.
    @Test func passwordlessSignUpSignsTheNewUserIn() async throws {
        let store = try await TempStore()
        let user = "su-\(UUID().uuidString.prefix(8).lowercased())"
        let wrong = try await Self.login(user, ["--sign-up", "--user-attribute", "email=\(user)@example.com", "--mfa-code", "000000x"], store: store)
        #expect(wrong.status == 3 && wrong.stderr.contains("the code is wrong"), "\(wrong.stderr)")
        let fresh = "su-\(UUID().uuidString.prefix(8).lowercased())"
        let signedUp = try await Self.login(
            fresh, ["--sign-up", "--user-attribute", "email=\(fresh)@example.com", "--mfa-code-command", CognitoChallengeTests.outbox(fresh)], store: store)
        #expect(signedUp.status == 0, "\(signedUp.stderr)")
        #expect(try await Self.gatewayAccepts(store))
        let malformed = try await Self.login(fresh, ["--sign-up", "--user-attribute", "email"], store: store)
        #expect(malformed.status == 2 && malformed.stderr.contains("--user-attribute"), "\(malformed.stderr)")
        let botocore = try await Peers.oracle(
            "scripts/oracles/botocore_sign_up.py", arguments: [Peers.cognito + "/", Peers.cognitoClient, "su-\(UUID().uuidString.prefix(8).lowercased())"],
            environment: [:])
        #expect(botocore == ["confirmed": "False", "medium": "EMAIL", "tokens": "True"])
    }

    /// Faults: a wrong email code, a challenge session that expired before the answer, no
    /// authenticator where one was named, an origin the pool's relying party does not belong to.
    @Test func faultsHaveClearErrors() async throws {
        let user = try await CognitoChallengeTests.user(["email": true])
        let store = try await TempStore()
        let wrong = try await Self.login(user, ["--challenge", "email-otp", "--mfa-code", "000000x"], store: store)
        #expect(wrong.status == 3 && wrong.stderr.contains("the code is wrong") && !wrong.stderr.contains("000000x"), "\(wrong.stderr)")
        let expire = #"curl -sf -o /dev/null -X POST -d '{"username": "\#(user)"}' "# + Peers.cognito + "/_peer/expire-sessions; " + CognitoChallengeTests.outbox(user)
        let late = try await Self.login(user, ["--challenge", "email-otp", "--mfa-code-command", expire], store: store)
        #expect(late.status == 3 && late.stderr.contains("session is expired"), "\(late.stderr)")

        let authenticator = try await SoftwareAuthenticator()
        let absent = try await Self.login(
            user, ["--challenge", "email-otp", "--mfa-code-command", CognitoChallengeTests.outbox(user), "--register-passkey",
                   "--authenticator", "unix:" + authenticator.folder + "/absent.sock"], store: store)
        #expect(absent.status == 1 && absent.stderr.contains("no authenticator answers at unix:"), "\(absent.stderr)")
        // The sign-in before the failed registration is kept.
        #expect(try await CLI.run(["whoami", "--name", "ch"] + store.arguments).status == 0)
        let elsewhere = try await Self.login(
            user, ["--challenge", "email-otp", "--mfa-code-command", CognitoChallengeTests.outbox(user), "--register-passkey",
                   "--authenticator", authenticator.device, "--passkey-origin", "https://evil.example"], store: store)
        #expect(elsewhere.status == 1 && elsewhere.stderr.contains("relying party auth.multiauth.test is not evil.example"), "\(elsewhere.stderr)")
        #expect(authenticator.operations.isEmpty)
        let none = try await Self.login(user, ["--challenge", "web-authn", "--authenticator", authenticator.device], store: store)
        #expect(none.status == 5 && none.stderr.contains("WEB_AUTHN is not available"), "\(none.stderr)")
    }
}

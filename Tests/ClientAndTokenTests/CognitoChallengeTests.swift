import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Testing

/// The other Cognito challenges against the Cognito stand-in: SMS and email MFA (codes read
/// from the peer's outbox, as a user reads a text), SELECT_MFA_TYPE, CUSTOM_AUTH rounds, and
/// USER_AUTH's choice of first factor.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.cognito.isEmpty, Peers.reason), .serialized) struct CognitoChallengeTests {
    static let password = "Str0ng-Passw0rd!"

    static func user(_ factors: [String: Any]) async throws -> String {
        let name = "ch-\(UUID().uuidString.prefix(8).lowercased())"
        let body = try JSONSerialization.data(withJSONObject: factors.merging(["username": name, "password": password]) { $1 })
        _ = try await CurlHTTPClient().send(try HTTPRequest(method: .post, wireURL: Peers.cognito + "/_peer/users"), body: .bytes(Array(body)))
        return name
    }

    static func outbox(_ user: String) -> String {
        "\(Paths.python) \(Paths.repository.path)/scripts/oracles/cognito_outbox.py \(Peers.cognito) \(user)"
    }

    static func login(_ user: String, _ extra: [String], input: String? = password + "\n", store: TempStore? = nil) async throws -> CLI.Run {
        let store = if let store { store } else { try await TempStore() }
        return try await CLI.run(
            ["login", "cognito", "--user-pool-id", Peers.cognitoPool, "--client-id", Peers.cognitoClient, "--endpoint", Peers.cognito + "/",
             "--username", user, "--name", "ch"] + extra + store.arguments, input: input)
    }

    @Test func smsAndEmailCodesAndTheChoiceBetweenFactors() async throws {
        let sms = try await Self.user(["sms": true])
        let bySMS = try await Self.login(sms, ["--password-stdin", "--mfa-code-command", Self.outbox(sms)])
        #expect(bySMS.status == 0, "\(bySMS.stderr)")
        let both = try await Self.user(["totp": true, "email": true])
        let unchosen = try await Self.login(both, ["--password-stdin", "--mfa-code-command", Self.outbox(both)])
        #expect(unchosen.status == 2 && unchosen.stderr.contains("SELECT_MFA_TYPE (totp, email)") && unchosen.stderr.contains("--mfa-type"), "\(unchosen.stderr)")
        let byEmail = try await Self.login(both, ["--password-stdin", "--mfa-type", "email", "--mfa-code-command", Self.outbox(both)])
        #expect(byEmail.status == 0, "\(byEmail.stderr)")
        let wrong = try await Self.login(sms, ["--password-stdin", "--mfa-code", "000000x"])
        #expect(wrong.status == 3 && wrong.stderr.contains("the code is wrong"), "\(wrong.stderr)")
    }

    /// Two rounds of custom challenges: from flags, then from a command that sees the
    /// round's parameters; a wrong answer is refused.
    @Test func customChallengesAnyNumberOfRounds() async throws {
        let user = try await Self.user(["custom": ["blue", "forty-two"]])
        let byFlags = try await Self.login(user, ["--flow", "custom", "--custom-answer", "blue", "--custom-answer", "forty-two"], input: nil)
        #expect(byFlags.status == 0, "\(byFlags.stderr)")
        let command = #"if [ "$MULTIAUTH_CHALLENGE_ROUND" = 1 ]; then echo blue; else echo forty-two; fi"#
        let byCommand = try await Self.login(user, ["--flow", "custom", "--custom-answer-command", command], input: nil)
        #expect(byCommand.status == 0, "\(byCommand.stderr)")
        let wrong = try await Self.login(user, ["--flow", "custom", "--custom-answer", "blue", "--custom-answer", "41"], input: nil)
        #expect(wrong.status == 3 && !wrong.stderr.contains("41"), "\(wrong.stderr)")
        let unanswered = try await Self.login(user, ["--flow", "custom"], input: nil)
        #expect(unanswered.status == 2 && unanswered.stderr.contains("CUSTOM_CHALLENGE"), "\(unanswered.stderr)")
    }

    /// USER_AUTH: an email code as the only factor, the password by SRP then TOTP, and the
    /// pool's SELECT_CHALLENGE when nothing is preferred.
    @Test func choiceBasedSignIn() async throws {
        let user = try await Self.user(["email": true])
        let byCode = try await Self.login(user, ["--flow", "user-auth", "--preferred-challenge", "email-otp", "--mfa-code-command", Self.outbox(user)], input: nil)
        #expect(byCode.status == 0, "\(byCode.stderr)")
        let bySRP = try await Self.login(user, ["--password-stdin", "--flow", "user-auth", "--preferred-challenge", "password-srp", "--mfa-code-command", Self.outbox(user)])
        #expect(bySRP.status == 0, "\(bySRP.stderr)")
        let byPassword = try await Self.login(user, ["--password-stdin", "--flow", "user-auth", "--preferred-challenge", "password", "--mfa-code-command", Self.outbox(user)])
        #expect(byPassword.status == 0, "\(byPassword.stderr)")
        let unchosen = try await Self.login(user, ["--password-stdin", "--flow", "user-auth"])
        #expect(unchosen.status == 2 && unchosen.stderr.contains("SELECT_CHALLENGE (password, password-srp, email-otp)"), "\(unchosen.stderr)")
    }
}

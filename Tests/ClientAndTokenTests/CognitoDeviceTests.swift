import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Testing

/// Remembered devices against the Cognito stand-in (scripts/peers/cognito_server.py), which
/// checks every SRP proof, TOTP code and device key; pycognito and boto3 go through the same
/// flow against it in the same suite, to show the peer is faithful.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.cognito.isEmpty, Peers.reason), .serialized) struct CognitoDeviceTests {
    static let password = "Str0ng-Passw0rd!"

    /// A new TOTP user of the peer, and its TOTP secret.
    static func freshUser() async throws -> (name: String, secret: String) {
        let name = "dev-\(UUID().uuidString.prefix(8).lowercased())"
        let body = try JSONSerialization.data(withJSONObject: ["username": name, "password": password, "totp": true])
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .post, wireURL: Peers.cognito + "/_peer/users"), body: .bytes(Array(body)))
        let created = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
        return (name, try #require(created?["totp_secret"]))
    }

    static func devices(of user: String) async throws -> [String: String] {
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: Peers.cognito + "/_peer/devices?username=" + user))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String] ?? [:]
    }

    static func codeCommand(_ secret: String) -> String {
        "\(Paths.python) \(Paths.repository.path)/scripts/oracles/totp_code.py \(secret)"
    }

    static func login(_ user: String, _ store: TempStore, _ extra: [String] = []) async throws -> CLI.Run {
        try await CLI.run(
            ["login", "cognito", "--user-pool-id", Peers.cognitoPool, "--client-id", Peers.cognitoClient, "--endpoint", Peers.cognito + "/",
             "--username", user, "--password-stdin", "--name", "dev"] + extra + store.arguments, input: password + "\n")
    }

    @Test func pycognitoSignsInAndProvesADeviceAgainstThePeer() async throws {
        let user = try await Self.freshUser()
        let result = try await Peers.oracle(
            "scripts/oracles/pycognito_device_flow.py",
            arguments: [Peers.cognito, Peers.cognitoPool, Peers.cognitoClient, user.name, Self.password, user.secret], environment: [:])
        #expect(result["error"] == nil, "\(result)")
        #expect(result["userConfirmationNecessary"] == "True" && result["deviceSignIn"] == "tokens")
        #expect(result["refreshWithDeviceKey"] == "tokens" && result["refreshWithoutDeviceKey"] == "NotAuthorizedException")
        #expect(result["wrongDevicePassword"] == "NotAuthorizedException")
    }

    /// The issue's scenario: a TOTP user logs in with a code and remembers the device, logs
    /// in again with no code and no prompt, and `multiauth token` refreshes with the device
    /// key; after `logout --forget-device` the code is asked again.
    @Test func aRememberedDeviceSkipsMFAAndRefreshesWithItsKey() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let first = try await Self.login(user.name, store, ["--mfa-code-command", Self.codeCommand(user.secret), "--remember-device"])
        #expect(first.status == 0 && first.stderr.contains("This device is remembered"), "\(first.stderr)")
        let devices = try await Self.devices(of: user.name)
        #expect(devices.count == 1 && devices.values.first == "remembered", "\(devices)")
        let second = try await Self.login(user.name, store)
        #expect(second.status == 0, "\(second.stderr)")
        let refreshed = try await CLI.run(["token", "--name", "dev", "--type", "access", "--min-validity", "7200"] + store.arguments)
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        let claims = try #require(JSONSerialization.jsonObject(
            with: Data(base64URL: String(refreshed.stdout.split(separator: ".")[1]))) as? [String: Any])
        #expect(claims["device_key"] as? String == devices.keys.first)
        let listed = try await CLI.run(["store", "list"] + store.arguments)
        #expect(listed.stdout.contains("multiauth.cognito-device") && listed.stdout.contains(user.name))
        let logout = try await CLI.run(["logout", "--name", "dev", "--forget-device"] + store.arguments)
        #expect(logout.status == 0 && logout.stderr.contains("The pool forgot device"), "\(logout.stderr)")
        #expect(try await Self.devices(of: user.name).isEmpty)
        let third = try await Self.login(user.name, store)
        #expect(third.status == 2 && third.stderr.contains("SOFTWARE_TOKEN_MFA"), "\(third.stderr)")
    }

    /// A device the pool forgot (another client called ForgetDevice) while the store still
    /// keeps it: the next sign-in offers it, and the pool asks for MFA again.
    @Test func aDeviceForgottenByThePoolMeansMFAAgain() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        await #expect(try Self.login(user.name, store, ["--mfa-code-command", Self.codeCommand(user.secret), "--remember-device"]).status == 0)
        let deviceKey = try #require(try await Self.devices(of: user.name).keys.first)
        let access = try await CLI.run(["token", "--name", "dev", "--type", "access"] + store.arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let forget = try JSONSerialization.data(withJSONObject: ["AccessToken": access, "DeviceKey": deviceKey])
        let request = try HTTPRequest(
            method: .post, wireURL: Peers.cognito + "/",
            headerFields: HTTPFields(checking: [("X-Amz-Target", "AWSCognitoIdentityProviderService.ForgetDevice"), ("Content-Type", "application/x-amz-json-1.1")]))
        #expect(try await CurlHTTPClient().send(request, body: .bytes(Array(forget))).status == 200)
        let asked = try await Self.login(user.name, store)
        #expect(asked.status == 2 && asked.stderr.contains("SOFTWARE_TOKEN_MFA"), "\(asked.stderr)")
    }

    /// A session that expired while the code was being typed (the peer's three minutes, ended
    /// early through its hook for this user alone, since other suites log in meanwhile) is
    /// refused with Cognito's message, and nothing is saved.
    @Test func anExpiredSessionIsRefused() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let expire = #"curl -sf -X POST -d '{"username": "\#(user.name)"}' "# + Peers.cognito + "/_peer/expire-sessions"
        let slowCode = "\(expire) >/dev/null && \(Self.codeCommand(user.secret))"
        let run = try await Self.login(user.name, store, ["--mfa-code-command", slowCode])
        #expect(run.status == 3 && run.stderr.contains("session is expired"), "\(run.stderr)")
        #expect(try await CLI.run(["token", "--name", "dev"] + store.arguments).status != 0)
    }

    /// The device's password gone from the store: nothing to prove, so the pool asks for MFA.
    @Test func aDeviceMissingFromTheStoreMeansMFAAgain() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        await #expect(try Self.login(user.name, store, ["--mfa-code-command", Self.codeCommand(user.secret), "--remember-device"]).status == 0)
        #expect(try await CLI.run(["store", "rm", "multiauth.cognito-device", user.name] + store.arguments).status == 0)
        let asked = try await Self.login(user.name, store)
        #expect(asked.status == 2 && asked.stderr.contains("SOFTWARE_TOKEN_MFA"), "\(asked.stderr)")
    }

    @Test func aChallengeNoClientKnowsIsTyped() async throws {
        let name = "future-\(UUID().uuidString.prefix(8).lowercased())"
        let body = try JSONSerialization.data(withJSONObject: ["username": name, "password": Self.password, "unknown_challenge": true])
        _ = try await CurlHTTPClient().send(try HTTPRequest(method: .post, wireURL: Peers.cognito + "/_peer/users"), body: .bytes(Array(body)))
        let run = try await Self.login(name, try await TempStore())
        #expect(run.status == 5 && run.stderr.contains("challenge FUTURE_CHALLENGE, which this client does not answer"), "\(run.stderr)")
    }

    @Test func aWrongPasswordAndAReusedCodeAreTyped() async throws {
        let user = try await Self.freshUser()
        let store = try await TempStore()
        let wrong = try await CLI.run(
            ["login", "cognito", "--user-pool-id", Peers.cognitoPool, "--client-id", Peers.cognitoClient, "--endpoint", Peers.cognito + "/",
             "--username", user.name, "--password-stdin", "--name", "dev"] + store.arguments, input: "Wrong-Passw0rd!\n")
        #expect(wrong.status == 3 && wrong.stderr.contains("not authorized") && !wrong.stderr.contains("Wrong-Passw0rd"), "\(wrong.stderr)")
        let code = try #require(try await Peers.oracle("scripts/oracles/totp_code_json.py", arguments: [user.secret], environment: [:])["code"])
        await #expect(try Self.login(user.name, store, ["--mfa-code", code]).status == 0)
        let reused = try await Self.login(user.name, store, ["--mfa-code", code])
        #expect(reused.status == 4 && reused.stderr.contains("expired"), "\(reused.stderr)")
        #expect(!reused.stderr.contains(code))
    }
}

extension Data {
    /// base64url without padding, as JWTs write it.
    init(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self = Data(base64Encoded: base64) ?? Data()
    }
}

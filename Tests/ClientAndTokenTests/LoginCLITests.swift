import Foundation
import IntegrationSupport
import Testing

/// `multiauth login`, `token`, `whoami`, `logout` and `request --name` end to end, against
/// moto (Cognito) and nanoidp (OIDC).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && Peers.oidcAvailable, Peers.reason)) struct LoginCLITests {
    @Test func cognitoLoginReadsTheCognitoUserPoolSectionOfAwsconfiguration() async throws {
        let setup = try #require(Peers.setup)
        let store = try await TempStore()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-login-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("""
            {"AppSync": {"Default": {"ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql", "Region": "us-east-1",
              "AuthMode": "AMAZON_COGNITO_USER_POOLS"}},
             "CognitoUserPool": {"Default": {"PoolId": "\(setup.userPoolId)", "AppClientId": "\(setup.clientId)",
              "Region": "us-east-1", "Endpoint": "\(Peers.moto)"}}}
            """.utf8).write(to: URL(fileURLWithPath: file))
        let login = try await CLI.run(
            ["login", "cognito", "--config", file, "--username", "alice", "--password-stdin", "--flow", "password", "--name", "cfg"]
                + store.arguments, input: "Str0ng-Passw0rd!\n")
        #expect(login.status == 0, "\(login.stderr)")
        let whoami = try await CLI.run(["whoami", "--name", "cfg"] + store.arguments)
        #expect(whoami.stdout.contains(setup.userPoolId), "\(whoami.stdout)")
        let missing = try await CLI.run(["login", "oidc", "--config", file] + store.arguments)
        #expect(missing.status != 0 && missing.stderr.contains("no OIDC section"), "\(missing.stderr)")
    }

    @Test(arguments: ["srp", "password"])
    func cognitoLoginTokenWhoamiRequestLogout(flow: String) async throws {
        let setup = try #require(Peers.setup)
        let store = try await TempStore()
        let password = "Str0ng-Passw0rd!"
        let login = try await CLI.run(
            ["login", "cognito", "--user-pool-id", setup.userPoolId, "--client-id", setup.clientId, "--endpoint", Peers.moto,
             "--username", "alice", "--password-stdin", "--flow", flow, "--name", "work"] + store.arguments, input: password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Logged in as alice"))
        let token = try await CLI.run(["token", "--name", "work"] + store.arguments)
        #expect(token.status == 0)
        let idToken = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(idToken.split(separator: ".").count == 3)
        let whoami = try await CLI.run(["whoami", "--name", "work"] + store.arguments)
        #expect(whoami.stdout.contains("cognito:username\":\"alice"))
        for output in [login.stdout, login.stderr, whoami.stdout, whoami.stderr] {
            #expect(!output.contains(idToken) && !output.contains(password))
        }
        // The API server checks the JWT against moto's JWKS.
        let call = try await CLI.run(["request", Peers.api + "/jwt/x", "--auth", "user-pools", "--name", "work", "--fail"] + store.arguments)
        #expect(call.status == 0, "\(call.stderr)")
        let logout = try await CLI.run(["logout", "--name", "work"] + store.arguments)
        #expect(logout.status == 0)
        #expect(logout.stderr.contains("Removed login 'work'"))
        let gone = try await CLI.run(["token", "--name", "work"] + store.arguments)
        #expect(gone.status == 4)
        #expect(gone.stderr.contains("log in again"))
    }

    @Test func cognitoBadInputGetsOneLineAndAnExitCode() async throws {
        let setup = try #require(Peers.setup)
        let store = try await TempStore()
        let base = ["login", "cognito", "--user-pool-id", setup.userPoolId, "--client-id", setup.clientId, "--username", "alice", "--password-stdin"]
        // moto checks the password on USER_PASSWORD_AUTH only (it never verifies an SRP claim).
        let wrong = try await CLI.run(base + ["--flow", "password", "--endpoint", Peers.moto] + store.arguments, input: "Wr0ng-Secret-Pass!\n")
        #expect(wrong.status == 3)
        #expect(!wrong.stderr.contains("Wr0ng-Secret-Pass!"))
        #expect(wrong.stderr.split(separator: "\n").count == 1)
        let down = try await CLI.run(base + ["--endpoint", "http://127.0.0.1:9/"] + store.arguments, input: "x\n")
        #expect(down.status == 7)
        #expect(down.stderr.contains("unreachable"))
        let user = try await Peers.newCognitoUser("newbie-cli", pool: setup.userPoolId)
        let newbie = ["login", "cognito", "--user-pool-id", setup.userPoolId, "--client-id", setup.clientId, "--username", user,
             "--flow", "password", "--endpoint", Peers.moto] + store.arguments
        let asked = try await CLI.run(newbie + ["--password-stdin"], input: "Temp-Passw0rd!\n")
        #expect(asked.status == 3, "\(asked.stderr)")
        #expect(asked.stderr.contains("must set a new password"))
        let answered = try await CLI.run(newbie + ["--password-stdin", "--new-password-stdin"], input: "Temp-Passw0rd!\nN3w-Passw0rd-1!\n")
        #expect(answered.status == 0, "\(answered.stderr)")
    }

    @Test func oidcClientCredentialsAndAWrongSecret() async throws {
        let store = try await TempStore()
        let base = ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcConfidentialClient, "--flow", "client-credentials"]
        let login = try await CLI.run(base + store.arguments, environment: ["MULTIAUTH_CLIENT_SECRET": Peers.oidcClientSecret])
        #expect(login.status == 0, "\(login.stderr)")
        let token = try await CLI.run(["token", "--type", "access"] + store.arguments)
        #expect(token.status == 0)
        #expect(token.stdout.split(separator: ".").count == 3)
        // Issue 45, item 9: without --type, a login with only an access token prints it
        // (it used to fail with "use the access token"), and says so on standard error.
        let untyped = try await CLI.run(["token"] + store.arguments)
        #expect(untyped.status == 0 && untyped.stdout == token.stdout, "\(untyped.stderr)")
        #expect(untyped.stderr.contains("printing the access token"), "\(untyped.stderr)")
        let wrong = try await CLI.run(base + ["--client-secret", "bad-secret-123"] + store.arguments)
        #expect(wrong.status == 3)
        #expect(!wrong.stderr.contains("bad-secret-123"))
    }

    @Test func oidcDeviceFlow() async throws {
        let store = try await TempStore()
        let cli = try RunningCLI(
            ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcPublicClient, "--flow", "device", "--name", "device"]
                + store.arguments)
        let line = try #require(try await cli.waitForLine { $0.contains("enter the code") })
        let code = try #require(line.split(separator: " ").last.map(String.init))
        _ = try await Peers.python("scripts/peers/oidc_user.py", ["approve-device", Peers.oidcIssuer, code, Peers.oidcUser.0, Peers.oidcUser.1])
        let finished = try await cli.finish()
        #expect(finished.status == 0, "\(finished.stderr)")
        let whoami = try await CLI.run(["whoami", "--name", "device"] + store.arguments)
        #expect(whoami.stdout.contains("user: alice"))
        #expect(whoami.stdout.contains("flow: device"))
        let logout = try await CLI.run(["logout", "--name", "device"] + store.arguments)
        #expect(logout.stderr.contains("Revoked"))
    }

    @Test func oidcPKCEWithALoopbackRedirect() async throws {
        let store = try await TempStore()
        let cli = try RunningCLI(
            ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcPublicClient, "--flow", "pkce", "--timeout", "30"]
                + store.arguments)
        let url = try #require(try await cli.waitForLine { $0.hasPrefix("http") })
        #expect(url.contains("code_challenge_method=S256"))
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
        let browser = try await Peers.python("scripts/peers/oidc_user.py", ["browser", url, Peers.oidcUser.0, Peers.oidcUser.1])
        #expect(browser.hasPrefix("200"))
        let finished = try await cli.finish()
        #expect(finished.status == 0, "\(finished.stderr)")
        let token = try await CLI.run(["token"] + store.arguments)
        #expect(token.status == 0)
    }

    @Test func pkceTimesOutWithoutABrowser() async throws {
        let store = try await TempStore()
        let run = try await CLI.run(
            ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcPublicClient, "--flow", "pkce", "--timeout", "1"]
                + store.arguments)
        #expect(run.status == 28)
        #expect(run.stderr.contains("gave up waiting"))
    }
}

import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthHTTP
import Testing

/// `multiauth console` against the federation endpoint stand-in served by the STS peer
/// (scripts/peers/federation_peer.py: a sign-in token only for a live session STS issued;
/// SessionDuration only for a role's session), proven with a sign-in written from AWS's
/// documentation (scripts/oracles/console_signin.py, boto3 and urllib). Role sessions come from
/// botocore's own chain assuming a role at the STS stand-in.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason)) struct ConsoleTests {
    struct Setup {
        let folder: ScratchFolder

        init() throws {
            folder = try ScratchFolder("multiauth-console")
            try Data("[profile role]\nrole_arn = arn:aws:iam::123456789012:role/console\nsource_profile = base\nregion = us-east-1\n".utf8)
                .write(to: folder.url.appendingPathComponent("config"))
            try Data("[base]\naws_access_key_id = \(Peers.keyId)\naws_secret_access_key = \(Peers.secret)\n".utf8)
                .write(to: folder.url.appendingPathComponent("credentials"))
        }

        /// The shared files and the stand-ins, with `more` on top.
        func environment(_ more: [String: String] = [:]) -> [String: String] {
            [
                "AWS_CONFIG_FILE": folder.path + "/config", "AWS_SHARED_CREDENTIALS_FILE": folder.path + "/credentials",
                "AWS_ENDPOINT_URL_STS": Peers.sts, "AWS_ENDPOINT_URL_SIGNIN": Peers.sts, "AWS_REGION": "us-east-1", "BROWSER": "", "DISPLAY": "",
            ].merging(more) { $1 }
        }

        /// A role session botocore assumed at the STS stand-in, as the environment's keys.
        func roleSession() async throws -> [String: String] {
            let session = try await Peers.oracle("scripts/oracles/botocore_session_credentials.py", environment: environment(["AWS_PROFILE": "role"]))
            let key = try #require(session["access_key"], "\(session)")
            return ["AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": session["secret_key"] ?? "", "AWS_SESSION_TOKEN": session["token"] ?? ""]
        }
    }

    static func query(_ url: String) -> [String: String] {
        let parts = url.split(separator: "?", maxSplits: 1)
        return Dictionary(FormURLEncoding.decode(parts.count == 2 ? parts[1] : ""), uniquingKeysWith: { $1 })
    }

    static func belongs(_ token: String, to keyId: String) async throws -> Bool {
        let target = "/_peer/signin-token?" + String(decoding: FormURLEncoding.encode([("SigninToken", token), ("sessionId", keyId)]), as: UTF8.self)
        return try await GatewayTests.send(.get, Peers.sts + target).status == 200
    }

    /// A role's session: the URL goes to the federation endpoint's login with the destination
    /// asked for, its token is the session's (and not another session's), the endpoint got the
    /// console duration, and following the URL lands on the destination.
    @Test func aRoleSessionsURLSignsInAsThatSession() async throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let session = try await setup.roleSession()
        let destination = "https://console.aws.amazon.com/s3/home?region=us-east-1"
        let run = try await CLI.run(
            ["console", "--print", "--duration", "3600", "--destination", destination, "--issuer", "https://intranet.example"],
            environment: setup.environment(session))
        #expect(run.status == 0, "\(run.stderr)")
        let url = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix(Peers.sts + "/federation?"), "\(url.prefix(60))")
        let query = Self.query(url)
        let token = try #require(query["SigninToken"])
        #expect(query["Action"] == "login" && query["Destination"] == destination && query["Issuer"] == "https://intranet.example")
        #expect(try await Self.belongs(token, to: session["AWS_ACCESS_KEY_ID"] ?? ""))
        let other = try await setup.roleSession()
        let passesForAnother = try await Self.belongs(token, to: other["AWS_ACCESS_KEY_ID"] ?? "")
        #expect(!passesForAnother, "a token must not pass for another session")
        let calls = try await Peers.stsCalls("key_id", session["AWS_ACCESS_KEY_ID"] ?? "")
        #expect(calls.map { $0["action"] } == ["getSigninToken"] && calls.first?["duration"] == "3600", "\(calls)")
        let landed = try await GatewayTests.send(.get, url)
        #expect(landed.status == 302 && landed.head.headerFields[.location] == destination)
        #expect(!run.stderr.contains(token) && !run.stderr.contains(session["AWS_SECRET_ACCESS_KEY"] ?? "-"))
    }

    /// An IAM user's long-term keys: one GetFederationToken (the federated name, the duration
    /// and the documented policy), then a sign-in token for that session with no
    /// SessionDuration (the endpoint refuses one for a federated user's session).
    @Test func anIAMUsersKeysBecomeAFederatedUsersSession() async throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let name = "ci-" + UUID().uuidString.prefix(8)
        let run = try await CLI.run(
            ["console", "--print", "--duration", "129600", "--federated-name", String(name)],
            environment: setup.environment(["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret]))
        #expect(run.status == 0, "\(run.stderr)")
        let federation = try await Peers.stsCalls("federated_name", String(name))
        #expect(federation.count == 1 && federation.first?["outcome"] == "ok" && federation.first?["duration"] == "129600", "\(federation)")
        let policy = try #require(federation.first?["policy"])
        let statement = try #require((try JSONSerialization.jsonObject(with: Data(policy.utf8)) as? [String: Any])?["Statement"] as? [[String: Any]])
        #expect(statement.first?["Effect"] as? String == "Allow" && statement.first?["Action"] as? String == "*")
        let token = try #require(Self.query(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["SigninToken"])
        let signins = try await Peers.stsCalls("action", "getSigninToken")
        var used: [String: String]?
        for call in signins {
            if try await Self.belongs(token, to: call["key_id"] ?? "") { used = call }
        }
        #expect(used?["key_id"]?.hasPrefix("ASIA") == true && used?["duration"] == nil, "\(String(describing: used))")
        let passesForTheUser = try await Self.belongs(token, to: Peers.keyId)
        #expect(!passesForTheUser)
    }

    /// The documented client agrees with the stand-in: its tokens pass for its sessions (a
    /// role's, and a federated user's it makes itself with boto3), its login URL redirects,
    /// and a session with a wrong key is refused.
    @Test func theStandInAgreesWithTheDocumentedClient() async throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let session = try await setup.roleSession()
        let signedIn = try await Peers.oracle("scripts/oracles/console_signin.py", arguments: [Peers.sts, Peers.sts], environment: session)
        let token = try #require(signedIn["token"], "\(signedIn)")
        let documentedTokenPasses = try await Self.belongs(token, to: signedIn["key_id"] ?? "")
        #expect(signedIn["key_id"] == session["AWS_ACCESS_KEY_ID"] && documentedTokenPasses)
        let landed = try await GatewayTests.send(.get, signedIn["url"] ?? "")
        #expect(landed.status == 302 && landed.head.headerFields[.location] == "https://console.aws.amazon.com/")
        let user = try await Peers.oracle(
            "scripts/oracles/console_signin.py", arguments: [Peers.sts, Peers.sts],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        let userKey = try #require(user["key_id"], "\(user)")
        let federatedTokenPasses = try await Self.belongs(user["token"] ?? "", to: userKey)
        #expect(userKey.hasPrefix("ASIA") && federatedTokenPasses)
        var tampered = session
        tampered["AWS_SECRET_ACCESS_KEY"] = String((session["AWS_SECRET_ACCESS_KEY"] ?? "").reversed())
        let refused = try await Peers.oracle("scripts/oracles/console_signin.py", arguments: [Peers.sts, Peers.sts], environment: tampered)
        #expect(refused["error"] == "400", "\(refused)")
    }

    /// Faults: a session the endpoint refuses (exit 5, named, nothing secret printed); no
    /// browser without --print (exit 1) and a role session asked for more than 12 hours, both
    /// refused before any call; and with $BROWSER, the URL goes to the browser only.
    @Test func faultsAndTheBrowser() async throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let unknown = ["AWS_ACCESS_KEY_ID": "ASIAUNKNOWNSESSION01", "AWS_SECRET_ACCESS_KEY": "not-a-secret-sts-issued", "AWS_SESSION_TOKEN": "not-a-token-sts-issued"]
        let refused = try await CLI.run(["console", "--print"], environment: setup.environment(unknown))
        #expect(refused.status == 5 && refused.stderr.contains("signin"), "\(refused.status) \(refused.stderr)")
        #expect(refused.stdout.isEmpty && !refused.stderr.contains("not-a-secret-sts-issued") && !refused.stderr.contains("not-a-token-sts-issued"))

        let session = try await setup.roleSession()
        let noBrowser = try await CLI.run(["console"], environment: setup.environment(session))
        #expect(noBrowser.status == 1 && noBrowser.stderr.contains("--print"), "\(noBrowser.stderr)")
        let tooLong = try await CLI.run(["console", "--print", "--duration", "50000"], environment: setup.environment(session))
        #expect(tooLong.status != 0 && tooLong.stderr.contains("43200"), "\(tooLong.stderr)")
        #expect(try await Peers.stsCalls("key_id", session["AWS_ACCESS_KEY_ID"] ?? "").isEmpty)

        let opened = setup.folder.path + "/opened"
        let browser = setup.folder.path + "/browser"
        try Data("#!/bin/sh\nprintf '%s' \"$1\" > '\(opened)'\n".utf8).write(to: URL(fileURLWithPath: browser))
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: browser)
        let run = try await CLI.run(["console"], environment: setup.environment(session.merging(["BROWSER": browser]) { $1 }))
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run.stderr)")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: opened), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let url = try String(contentsOfFile: opened, encoding: .utf8)
        let token = try #require(Self.query(url)["SigninToken"])
        #expect(try await Self.belongs(token, to: session["AWS_ACCESS_KEY_ID"] ?? ""))
        #expect(!run.stderr.contains(token))
    }
}

import Foundation
import IntegrationSupport
import Testing

/// `multiauth login saml` against nanoidp's SAML IdP, signed in by a scripted browser
/// (scripts/peers/saml_browser.py as `$BROWSER`), with the STS stand-in's AssumeRoleWithSAML,
/// which verifies the assertion's signature with xmlsec1 against nanoidp's metadata. Bad
/// responses are made by independent code (saml_forge.py: lxml and signxml; the browser's own
/// AuthnRequest for another audience). botocore, through `credential_process`, is the client
/// that uses the session.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable && Peers.oidcAvailable, Peers.reason)) struct SAMLLoginTests {
    static let developer = "arn:aws:iam::123456789012:role/SAMLDeveloper"
    static let provider = "arn:aws:iam::123456789012:saml-provider/nanoidp"

    struct Setup: Sendable {
        let folder: ScratchFolder
        let browser: String

        init() async throws {
            folder = try ScratchFolder("multiauth-saml")
            let python = Paths.python, script = Paths.repository.appendingPathComponent("scripts/peers/saml_browser.py").path
            browser = try folder.script("browser", "exec \(python) \((Paths.pythonArguments + [script]).joined(separator: " ")) \"$@\"")
            try Data("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".utf8).write(to: folder.url.appendingPathComponent("key"))
            chmod(folder.path + "/key", 0o600)
            let created = try await CLI.run(["store", "init"] + store)
            #expect(created.status == 0, "\(created.stderr)")
        }

        var store: [String] { ["--store", folder.path + "/store", "--key-file", folder.path + "/key"] }
        var metadata: String { Peers.oidcIssuer + "/saml/metadata" }

        /// The stand-ins, the scripted browser signing in as `user`, and `more` on top.
        func environment(user: String = "samuel", _ more: [String: String] = [:]) -> [String: String] {
            [
                "AWS_ENDPOINT_URL_STS": Peers.sts, "AWS_REGION": "us-east-1", "BROWSER": browser, "DISPLAY": "",
                "SAML_BROWSER_USER": user, "SAML_BROWSER_PASSWORD": user + "-Passw0rd", "SAML_BROWSER_COUNT": folder.path + "/opened",
                "AWS_CONFIG_FILE": folder.path + "/config", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
            ].merging(more) { $1 }
        }

        func login(_ arguments: [String], user: String = "samuel", _ more: [String: String] = [:]) async throws -> CLI.Run {
            try await CLI.run(["login", "saml", "--timeout", "60"] + arguments + store, environment: environment(user: user, more))
        }

        /// A response nanoidp gives a client of its own (the browser script's AuthnRequest).
        func response(issuer: String = "urn:amazon:webservices", user: String = "samuel") async throws -> String {
            try await Peers.python(
                "scripts/peers/saml_browser.py",
                ["--fetch", Peers.oidcIssuer + "/saml/sso", issuer, "https://signin.aws.amazon.com/saml", user, user + "-Passw0rd"]
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func write(_ name: String, _ text: String) throws -> String {
            let path = folder.path + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        var browsersOpened: Int { ((try? String(contentsOfFile: folder.path + "/opened", encoding: .utf8)) ?? "").split(separator: "\n").count }
    }

    /// The browser signs in, our checks (with the metadata's certificate) and the verifying STS
    /// accept the assertion, and botocore, through a credential_process of `multiauth
    /// credentials` for a saml_session profile, signs a call the STS stand-in verifies.
    @Test func signsInAndBotocoreSignsWithTheSession() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let run = try await setup.login(["--idp-metadata", setup.metadata, "--name", "work"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Signed in as \(Self.developer)") && setup.browsersOpened == 1, "\(run.stderr)")
        let process = "\(Paths.multiauth.path) credentials --profile saml --format process \(setup.store.joined(separator: " "))"
        try Data("[profile saml]\nsaml_session = work\n[profile tool]\ncredential_process = \(process)\n".utf8)
            .write(to: setup.folder.url.appendingPathComponent("config"))
        let identity = try await Peers.oracle(
            "scripts/oracles/botocore_caller_identity.py", environment: setup.environment(["AWS_PROFILE": "tool"]))
        #expect(identity["arn"] == "arn:aws:sts::123456789012:assumed-role/SAMLDeveloper/samuel@example.org", "\(identity)")
        let calls = try await Peers.stsCalls("key_id", identity["access_key"] ?? "-")
        #expect(calls.map { $0["action"] } == ["AssumeRoleWithSAML", "GetCallerIdentity"] && calls.allSatisfy { $0["outcome"] == "ok" }, "\(calls)")
        let again = try await CLI.run(["credentials", "--profile", "saml"] + setup.store, environment: setup.environment())
        #expect(again.stdout.contains("AssumeRoleWithSAML (cached)") && setup.browsersOpened == 1, "\(again.stdout)\(again.stderr)")
    }

    /// A role renamed inside the signed assertion: refused by our digest check before any STS
    /// call; without the metadata, the verifying STS (xmlsec1) refuses it.
    @Test func aTamperedAssertionIsRefusedBeforeSTS() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let role = "SAMLTampered-\(UUID().uuidString.prefix(8))"
        let tampered = ["SAML_BROWSER_MODE": "tamper", "SAML_BROWSER_TAMPERED_ROLE": role]
        let ours = try await setup.login(["--idp-metadata", setup.metadata, "--name", "t"], tampered)
        #expect(ours.status == 6 && ours.stderr.contains("changed after it was signed"), "\(ours.stderr)")
        #expect(try await Peers.stsCalls("role_arn", "arn:aws:iam::123456789012:role/\(role)").isEmpty)
        let theirs = try await setup.login(["--idp-url", Peers.oidcIssuer + "/saml/sso", "--name", "t"], tampered)
        #expect(theirs.status == 3 && theirs.stderr.contains("InvalidIdentityToken"), "\(theirs.stderr)")
        let refused = try await Peers.stsCalls("role_arn", "arn:aws:iam::123456789012:role/\(role)")
        #expect(refused.map { $0["outcome"] } == ["InvalidIdentityToken"], "\(refused)")
    }

    /// Responses from a file (the route for IdPs that post only to AWS): a valid one signs in
    /// once and its replay is refused; one signed by another key, one unsigned, one for another
    /// audience, one without the role asked for and one of 10 MB each exit 6 with what is wrong,
    /// and none reaches STS or leaves a session.
    @Test func badResponsesGetTypedErrorsAndNoSession() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let good = try await setup.response()
        let path = try setup.write("good", good)
        let first = try await setup.login(["--idp-metadata", setup.metadata, "--saml-response-file", path, "--name", "file"])
        #expect(first.status == 0, "\(first.stderr)")
        let replay = try await setup.login(["--idp-metadata", setup.metadata, "--saml-response-file", path, "--name", "file"])
        #expect(replay.status == 6 && replay.stderr.contains("used already"), "\(replay.stderr)")
        let elsewhere = try await setup.login(["--saml-response-file", path, "--name", "other"])
        #expect(elsewhere.status == 3 && elsewhere.stderr.contains("used already"), "STS refuses a replay too: \(elsewhere.stderr)")
        let cases: [(String, String, [String])] = [
            ("forged", try await Peers.python("scripts/oracles/saml_forge.py", ["forge"], input: good), ["not the identity provider's"]),
            ("unsigned", try await Peers.python("scripts/oracles/saml_forge.py", ["unsign"], input: good), ["not signed"]),
            ("audience", try await setup.response(issuer: "https://other.example"), ["another audience"]),
            ("big", String(repeating: "A", count: 10 << 20), ["over"]),
        ]
        for (name, text, expected) in cases {
            let run = try await setup.login(["--idp-metadata", setup.metadata, "--saml-response-file", try setup.write(name, text), "--name", name])
            #expect(run.status == 6 && expected.allSatisfy(run.stderr.contains), "\(name): \(run.stderr)")
            #expect(!run.stderr.contains(String(good.prefix(40))), "\(name): the response must not be shown")
        }
        let noRole = try await setup.login(
            ["--idp-metadata", setup.metadata, "--saml-response-file", try setup.write("fresh", try await setup.response()),
             "--role-arn", "arn:aws:iam::123456789012:role/Nope", "--name", "norole"])
        #expect(noRole.status == 6 && noRole.stderr.contains("does not offer role"), "\(noRole.stderr)")
        let sessions = try await CLI.run(["store", "list"] + setup.store)
        #expect(sessions.stdout.components(separatedBy: "multiauth.saml-session").count == 2, "only 'file' is kept: \(sessions.stdout)")
    }

    /// Several roles offered: none chosen prints them and exits 2; one chosen is assumed for
    /// the assertion's SessionDuration.
    @Test func severalRolesAreListedUntilOneIsChosen() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let unchosen = try await setup.login(["--idp-metadata", setup.metadata], user: "bella")
        #expect(unchosen.status == 2 && unchosen.stderr.contains("role/SAMLReader") && unchosen.stderr.contains("role/SAMLAdmin"), "\(unchosen.stderr)")
        let chosen = try await setup.login(
            ["--idp-metadata", setup.metadata, "--role-arn", "arn:aws:iam::123456789012:role/SAMLReader", "--principal-arn", Self.provider],
            user: "bella")
        #expect(chosen.status == 0, "\(chosen.stderr)")
        try Data("[profile bella]\nsaml_session = default\n".utf8).write(to: setup.folder.url.appendingPathComponent("config"))
        let process = try await CLI.run(["credentials", "--profile", "bella", "--format", "process"] + setup.store, environment: setup.environment())
        let session = try JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [String: Any]
        let calls = try await Peers.stsCalls("key_id", session?["AccessKeyId"] as? String ?? "-")
        #expect(calls.map { "\($0["action"] ?? "") \($0["role_arn"] ?? "") \($0["duration"] ?? "")" }
            == ["AssumeRoleWithSAML arn:aws:iam::123456789012:role/SAMLReader 1800"], "\(calls)")
    }

    /// A browser that never posts ends at --timeout (exit 28); a 10 MB post is refused unread
    /// (exit 6). Nothing is kept either way.
    @Test func aBrowserThatNeverPostsOrPostsTooMuchIsBounded() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let silent = try await CLI.run(
            ["login", "saml", "--timeout", "2", "--idp-url", Peers.oidcIssuer + "/saml/sso"] + setup.store,
            environment: setup.environment(["SAML_BROWSER_MODE": "never"]))
        #expect(silent.status == 28, "\(silent.stderr)")
        let big = try await setup.login(["--idp-url", Peers.oidcIssuer + "/saml/sso"], ["SAML_BROWSER_MODE": "big"])
        #expect(big.status == 6 && big.stderr.contains("at most"), "\(big.stderr)")
        let sessions = try await CLI.run(["store", "list"] + setup.store)
        #expect(!sessions.stdout.contains("multiauth.saml-session"), "\(sessions.stdout)")
    }
}

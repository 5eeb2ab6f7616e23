import Foundation
import IntegrationSupport
import Testing

/// `login_session` profiles (the sessions `aws login` writes), refreshed through the sign-in
/// stand-in served by the STS peer (scripts/peers/signin_peer.py: DPoP proofs checked,
/// refresh tokens rotated strictly), with botocore's own LoginProvider as the other reader
/// and writer of the same cache. Sessions are seeded by scripts/oracles/login_session.py with
/// botocore's JSONFileCache.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason)) struct LoginSessionTests {
    struct Setup {
        let folder: ScratchFolder
        let name = "arn:aws:sts::123456789012:assumed-role/console/login-\(UUID().uuidString.prefix(8))"
        var session = ""
        var cachePath = ""

        init(expiresIn: Int = -60, revoked: Bool = false) async throws {
            folder = try ScratchFolder("multiauth-login-session")
            try Data("[profile dev]\nlogin_session = \(name)\nregion = us-east-1\n".utf8).write(to: folder.url.appendingPathComponent("config"))
            var arguments = [Peers.sts, folder.path + "/cache", name, "--expires-in", String(expiresIn)]
            if revoked { arguments.append("--revoked") }
            let output = try await Peers.python("scripts/oracles/login_session.py", arguments)
            let made = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
            cachePath = made["path"] ?? ""
            session = made["sessionId"] ?? ""
        }

        var environment: [String: String] {
            [
                "AWS_CONFIG_FILE": folder.path + "/config", "AWS_SHARED_CREDENTIALS_FILE": folder.path + "/none", "AWS_LOGIN_CACHE_DIRECTORY": folder.path + "/cache",
                "AWS_ENDPOINT_URL_SIGNIN": Peers.sts, "AWS_ENDPOINT_URL_STS": Peers.sts, "AWS_PROFILE": "dev",
            ]
        }

        func cache() throws -> [String: Any] {
            try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cachePath))) as? [String: Any])
        }

        func refreshes() async throws -> [String] { try await Peers.stsCalls("session_name", session).map { $0["outcome"] ?? "" } }

        func multiauthKey() async throws -> String {
            let run = try await CLI.run(["credentials", "--format", "process"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["AccessKeyId"] as? String ?? ""
        }

        func botocore() async throws -> [String: String] {
            try await Peers.oracle("scripts/oracles/botocore_caller_identity.py", environment: environment)
        }
    }

    /// MultiAuth refreshes an expired session (one DPoP-checked refresh), botocore then uses the
    /// keys MultiAuth wrote without refreshing; botocore refreshes a session near its expiry and
    /// MultiAuth uses what botocore wrote. Two refreshes, none refused, and STS accepts the keys.
    @Test func botocoreAndMultiAuthEachUseWhatTheOtherRefreshed() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        try #require(!setup.session.isEmpty)
        let seeded = try setup.cache()
        let first = try await setup.multiauthKey()
        #expect(first.hasPrefix("ASIA") && first != "ASIASEEDEDNOTISSUED0")
        let written = try setup.cache()
        #expect(written["refreshToken"] as? String != seeded["refreshToken"] as? String)
        #expect(written["dpopKey"] as? String == seeded["dpopKey"] as? String && written["idToken"] as? String == "not-a-real-id-token")
        let mode = try FileManager.default.attributesOfItem(atPath: setup.cachePath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let byBotocore = try await setup.botocore()
        #expect(byBotocore["access_key"] == first && byBotocore["method"] == "login" && byBotocore["arn"] != nil, "\(byBotocore)")
        #expect(try await setup.refreshes() == ["ok"])

        // Near expiry (inside botocore's 5-minute window): botocore refreshes and writes back.
        var nearExpiry = written
        var access = try #require(written["accessToken"] as? [String: Any])
        access["expiresAt"] = ISO8601DateFormatter().string(from: Date().addingTimeInterval(60))
        nearExpiry["accessToken"] = access
        try JSONSerialization.data(withJSONObject: nearExpiry).write(to: URL(fileURLWithPath: setup.cachePath))
        let refreshedByBotocore = try await setup.botocore()
        let second = try #require(refreshedByBotocore["access_key"], "\(refreshedByBotocore)")
        #expect(second != first && refreshedByBotocore["arn"] != nil, "\(refreshedByBotocore)")
        #expect(try await setup.multiauthKey() == second)
        #expect(try await setup.refreshes() == ["ok", "ok"])
    }

    /// Eight processes find the session expired at once: one refresh, one rotated token, and
    /// all eight print the same keys.
    @Test func eightProcessesRefreshOnce() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await setup.multiauthKey() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(keys).count == 1 && keys[0].hasPrefix("ASIA"), "\(keys)")
        #expect(try await setup.refreshes() == ["ok"])
    }

    /// The stand-in is strict: a spent refresh token (the file as it was before a refresh) and
    /// a proof made with another key than the session's are refused.
    @Test func theStandInRefusesSpentTokensAndOtherKeys() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let seeded = try Data(contentsOf: URL(fileURLWithPath: setup.cachePath))
        _ = try await setup.multiauthKey()
        try seeded.write(to: URL(fileURLWithPath: setup.cachePath))
        let spent = try await CLI.run(["credentials"], environment: setup.environment)
        #expect(spent.status == 1 && spent.stderr.contains("TOKEN_EXPIRED"), "\(spent.stderr)")

        let other = try await Setup()
        defer { other.folder.remove() }
        var fields = try other.cache()
        let key = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/openssl"), ["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        fields["dpopKey"] = String(decoding: key.stdout, as: UTF8.self)
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: other.cachePath))
        let wrongKey = try await CLI.run(["credentials"], environment: other.environment)
        #expect(wrongKey.status == 1 && wrongKey.stderr.contains("Token is not bound to this client or key"), "\(wrongKey.stderr)")
        #expect(try await setup.refreshes() == ["ok", "TOKEN_EXPIRED"])
        #expect(try await other.refreshes() == ["INVALID_REQUEST"])
    }

    /// A missing session, a malformed cache file, and a refresh token the service rejects
    /// (TOKEN_EXPIRED) each name the problem; the rejected one says to sign in again and leaves
    /// the file as it was.
    @Test func faultsSayWhatToDo() async throws {
        let revoked = try await Setup(revoked: true)
        defer { revoked.folder.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: revoked.cachePath))
        let rejected = try await CLI.run(["credentials"], environment: revoked.environment)
        #expect(rejected.status == 1 && rejected.stderr.contains("can no longer be refreshed (TOKEN_EXPIRED): run `multiauth login aws --profile dev` again"), "\(rejected.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: revoked.cachePath)) == before)
        #expect(try await revoked.refreshes() == ["TOKEN_EXPIRED"])
        let refreshToken = try #require(revoked.cache()["refreshToken"] as? String)
        #expect(!rejected.stderr.contains(refreshToken))

        try FileManager.default.removeItem(atPath: revoked.cachePath)
        let missing = try await CLI.run(["credentials"], environment: revoked.environment)
        #expect(missing.status == 1 && missing.stderr.contains("no login session '\(revoked.name)'") && missing.stderr.contains("run `multiauth login aws --profile dev` again"), "\(missing.stderr)")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: revoked.cachePath))
        let malformed = try await CLI.run(["credentials"], environment: revoked.environment)
        #expect(malformed.status == 1 && malformed.stderr.contains("login session cache \(revoked.cachePath) is not JSON"), "\(malformed.stderr)")
    }

    /// `multiauth login aws`: the browser (a `$BROWSER` script following the sign-in page's
    /// redirect to the loopback address) signs in, the session lands in the cache under the
    /// console session's name and the profile gets `login_session`; botocore's LoginProvider
    /// then signs an STS call with it. A profile with keys of its own is refused.
    @Test func loginAWSWritesASessionBotocoreUses() async throws {
        let folder = try ScratchFolder("multiauth-login-aws")
        defer { folder.remove() }
        let config = folder.path + "/config"
        try Data("[profile keep]\nregion = eu-west-1\n\n[profile keys]\naws_access_key_id = AKIDKEEP\n".utf8).write(to: URL(fileURLWithPath: config))
        let browser = try folder.script("browser", "curl -s -L -o /dev/null \"$1\"")
        let environment = [
            "AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": folder.path + "/none", "AWS_LOGIN_CACHE_DIRECTORY": folder.path + "/cache",
            "AWS_ENDPOINT_URL_SIGNIN": Peers.sts, "AWS_ENDPOINT_URL_STS": Peers.sts, "BROWSER": browser,
        ]
        let login = try await CLI.run(["login", "aws", "--profile", "dev", "--region", "us-east-1", "--timeout", "60"], environment: environment)
        #expect(login.status == 0 && login.stderr.contains("Signed in as arn:aws:iam::123456789012:user/console-tester"), "\(login.stderr)")
        let text = try String(contentsOfFile: config, encoding: .utf8)
        #expect(text.hasPrefix("[profile keep]\nregion = eu-west-1\n\n[profile keys]\naws_access_key_id = AKIDKEEP\n"), "\(text)")
        #expect(text.contains("[profile dev]\nlogin_session = arn:aws:iam::123456789012:user/console-tester"), "\(text)")
        let identity = try await Peers.oracle("scripts/oracles/botocore_caller_identity.py", environment: environment.merging(["AWS_PROFILE": "dev"]) { $1 })
        #expect(identity["method"] == "login" && identity["arn"] != nil, "\(identity)")
        let cached = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache").filter { $0.hasSuffix(".json") }
        #expect(cached.count == 1)

        let refused = try await CLI.run(["login", "aws", "--profile", "keys", "--region", "us-east-1"], environment: environment)
        #expect(refused.status == 1 && refused.stderr.contains("profile 'keys' already has aws_access_key_id"), "\(refused.stderr)")
    }
}

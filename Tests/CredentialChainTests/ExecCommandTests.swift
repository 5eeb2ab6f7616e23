import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
@testable import MultiAuthCredentialsServer
import MultiAuthCurl
import MultiAuthSigV4
import Synchronization
import Testing

/// `multiauth exec` in its three modes, with botocore's own chain inside the child: it must
/// resolve the session exec obtained and sign a call with it that the STS stand-in (which
/// checks signatures with botocore) accepts.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason)) struct ExecCommandTests {
    typealias Setup = SessionCacheTests.Setup

    /// botocore inside `exec` (with `mode`'s arguments), as JSON.
    static func botocoreInside(_ setup: Setup, _ mode: [String]) async throws -> (CLI.Run, [String: String]) {
        let run = try await CLI.run(
            ["exec", "--profile", "role"] + mode + ["--", Paths.python] + Paths.pythonArguments
                + [Paths.repository.appendingPathComponent("scripts/oracles/botocore_child.py").path, Peers.sts],
            environment: setup.environment.merging(["AWS_EC2_METADATA_DISABLED": "true"]) { $1 })
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String?]
        return (run, (object ?? [:]).compactMapValues { $0 })
    }

    @Test(arguments: [([String](), "env"), (["--server", "ecs"], "container-role"), (["--server", "imds"], "iam-role")])
    func botocoreInsideResolvesTheSessionAndSignsWithIt(mode: [String], method: String) async throws {
        // A [default] profile with keys of its own (issue 45, item 6): botocore's chain reads
        // the shared files before an endpoint, so the child got these instead of the role's.
        let defaults = "[default]\naws_access_key_id = AKIDDEFAULTPROFILE\naws_secret_access_key = default-profile-secret\n"
        let setup = try await Setup { role in SessionCacheTests.roleProfile(role) + defaults }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let (run, resolved) = try await Self.botocoreInside(setup, mode)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(resolved["method"] == method && resolved["access_key"]?.hasPrefix("ASIA") == true, "\(resolved)")
        #expect(resolved["region"] == "us-east-1")
        let roleName = setup.role.split(separator: "/").last.map(String.init) ?? ""
        #expect(resolved["caller_arn"]?.hasPrefix("arn:aws:sts::123456789012:assumed-role/\(roleName)/") == true, "\(resolved)")
        // The session exec obtained is the cached one: a second exec makes no STS call.
        let (again, second) = try await Self.botocoreInside(setup, mode)
        #expect(again.status == 0 && second["access_key"] == resolved["access_key"])
        #expect(try await setup.calls().map { $0["action"] } == ["AssumeRole"])
    }

    /// Issue 45, item 8: the child inherited PGPASSWORD, MULTIAUTH_API_KEY,
    /// MULTIAUTH_CLIENT_SECRET and MULTIAUTH_STORE_KEY_FILE. It gets no MultiAuth variable and
    /// no database password, in every mode.
    @Test(arguments: [[String](), ["--server", "ecs"], ["--server", "imds"]]) func theChildGetsNoSecretVariables(mode: [String]) async throws {
        let setup = try await Setup { role in SessionCacheTests.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let secrets = ["PGPASSWORD": "pg-secret-1", "MULTIAUTH_API_KEY": "api-key-secret-1", "MULTIAUTH_CLIENT_SECRET": "client-secret-1"]
        let run = try await CLI.run(["exec", "--profile", "role"] + mode + ["--", "env"], environment: setup.environment.merging(secrets) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        let names = run.stdout.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) }
        #expect(!names.contains { $0.hasPrefix("MULTIAUTH_") || $0 == "PGPASSWORD" }, "\(names)")
        #expect(!run.stdout.contains("secret-1"))
    }

    /// Issue 45, item 6: the IMDS emulator answered any local user (uid 65534 got the
    /// credentials) and any `Host` (DNS rebinding). Another user and a host name are now
    /// refused; the child itself is served.
    @Test func theEmulatorServesOnlyItsUserAtALocalHost() async throws {
        let setup = try await Setup { role in SessionCacheTests.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let put = "curl -s -o /dev/null -w '%{http_code}\\n' -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60'"
        let script = """
            \(put) "$AWS_EC2_METADATA_SERVICE_ENDPOINT/latest/api/token"
            setpriv --reuid 65534 --regid 65534 --clear-groups \(put) "$AWS_EC2_METADATA_SERVICE_ENDPOINT/latest/api/token"
            \(put) -H 'Host: rebound.example' "$AWS_EC2_METADATA_SERVICE_ENDPOINT/latest/api/token"
            \(put) -H 'Host: localhost' "$AWS_EC2_METADATA_SERVICE_ENDPOINT/latest/api/token"
            """
        let run = try await CLI.run(["exec", "--profile", "role", "--server", "imds", "--", "sh", "-c", script], environment: setup.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n") == ["200", "403", "403", "200"], "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("uid=65534") && run.stderr.contains("rebound.example"), "\(run.stderr)")
    }

    /// Issue 45, item 6: 10,000 token requests filled the emulator's table, and new ones got
    /// 503 for up to six hours. The token closest to expiring now makes room.
    @Test func aFullTokenTableMakesRoomForANewToken() throws {
        let endpoint = InstanceMetadataEndpoint(roleName: "r", region: nil, clock: TimeSource { 1_800_000_000 })
        func token(ttl: Int) -> String? {
            let request = HTTPRequest(
                method: .put, scheme: "http", authority: "127.0.0.1", path: "/latest/api/token",
                headerFields: [HTTPField.Name("X-aws-ec2-metadata-token-ttl-seconds")!: String(ttl)])
            guard case .text(.ok, let value, _) = endpoint.answer(request) else { return nil }
            return value
        }
        let first = try #require(token(ttl: 60))
        for _ in 1..<InstanceMetadataEndpoint.maxTokens { _ = token(ttl: 21_600) }
        let newest = try #require(token(ttl: 21_600), "a full table refused a new token")
        func isLive(_ value: String) -> Bool {
            let request = HTTPRequest(
                method: .get, scheme: "http", authority: "127.0.0.1", path: "/latest/meta-data/placement/availability-zone",
                headerFields: [HTTPField.Name("X-aws-ec2-metadata-token")!: value])
            if case .text(.unauthorized, _, _) = endpoint.answer(request) { return false }
            return true
        }
        #expect(isLive(newest) && !isLive(first))
    }

    /// The child's status is exec's; a signal that ends it gives 128 + N; SIGTERM sent to
    /// exec reaches the child; a program that does not exist exits 127.
    @Test func exitStatusesAndSignalsPassThrough() async throws {
        let setup = try await Setup { role in SessionCacheTests.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let environment = setup.environment
        #expect(try await CLI.run(["exec", "--profile", "role", "--", "sh", "-c", "exit 7"], environment: environment).status == 7)
        #expect(try await CLI.run(["exec", "--profile", "role", "--server", "ecs", "--", "sh", "-c", "kill -KILL $$"], environment: environment).status == 137)
        let missing = try await CLI.run(["exec", "--profile", "role", "--", "no-such-program-here"], environment: environment)
        #expect(missing.status == 127 && missing.stderr.contains("no-such-program-here"))
        let marker = setup.folder.path + "/terminated"
        let child = try RunningCLI(
            ["exec", "--profile", "role", "--server", "imds", "--", "sh", "-c", "trap 'echo term > \(marker); exit 5' TERM; echo ready >&2; while :; do sleep 0.05; done"],
            environment: environment)
        #expect(try await child.waitForLine { $0 == "ready" } != nil)
        child.process.terminate()
        let (status, _) = try await child.finish()
        #expect(status == 5 && FileManager.default.fileExists(atPath: marker))
    }

    /// The container endpoint refuses requests without the token (401) or with another
    /// exec's (403), however many, and still serves the right one; each exec has its own.
    @Test func theContainerEndpointRequiresItsOwnToken() async throws {
        let setup = try await Setup { role in SessionCacheTests.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let script = """
            for i in $(seq 50); do curl -s -o /dev/null -w '%{http_code} ' "$AWS_CONTAINER_CREDENTIALS_FULL_URI"; done | tr ' ' '\\n' | sort | uniq -c | tr -s ' ' | tr '\\n' ';'
            curl -s -o /dev/null -w 'wrong:%{http_code};' -H "Authorization: not-$AWS_CONTAINER_AUTHORIZATION_TOKEN" "$AWS_CONTAINER_CREDENTIALS_FULL_URI"
            curl -s -o /dev/null -w 'right:%{http_code};' -H "Authorization: $AWS_CONTAINER_AUTHORIZATION_TOKEN" "$AWS_CONTAINER_CREDENTIALS_FULL_URI"
            echo "token:$AWS_CONTAINER_AUTHORIZATION_TOKEN"
            """
        async let first = CLI.run(["exec", "--profile", "role", "--server", "ecs", "--", "sh", "-c", script], environment: setup.environment)
        async let second = CLI.run(["exec", "--profile", "role", "--server", "ecs", "--", "sh", "-c", script], environment: setup.environment)
        let runs = try await [first, second]
        for run in runs {
            #expect(run.status == 0 && run.stdout.hasPrefix(" 50 401;wrong:403;right:200;token:"), "\(run.stdout) \(run.stderr)")
        }
        #expect(Set(runs.map { $0.stdout }).count == 2)
    }

    /// The IMDSv2 emulator, driven with an injected clock: a token is required and lives its
    /// TTL; a TTL out of range, a proxied token request and IMDSv1 are refused; the role and
    /// region are served.
    @Test func theInstanceMetadataEmulatorHonoursTokenTTLs() async throws {
        let now = Mutex<Double>(1_800_000_000)
        let clock = TimeSource { now.withLock { $0 } }
        let keys = AWSCredentials(accessKeyId: "AKIDEMULATED", secretAccessKey: "emulated-secret", sessionToken: nil)
        let (ports, ready) = AsyncStream<Int>.makeStream()
        let server = CredentialsServer(
            .instanceMetadata(roleName: "worker", region: "eu-west-3"), credentials: StaticCredentialsProvider(keys), clock: clock,
            onListening: { port in ready.yield(port) })
        let running = Task { try await server.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let base = "http://127.0.0.1:\(try #require(await iterator.next()))"
        let http = CurlHTTPClient()
        func send(_ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:]) async throws -> (Int, String) {
            var request = try HTTPRequest(method: method, wireURL: base + path)
            request.headerFields = fields
            let response = try await http.send(request)
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        let ttl = HTTPField.Name("X-aws-ec2-metadata-token-ttl-seconds")!, tokenField = HTTPField.Name("X-aws-ec2-metadata-token")!
        #expect(try await send(.get, "/latest/meta-data/iam/security-credentials/").0 == 401)
        #expect(try await send(.put, "/latest/api/token", [ttl: "0"]).0 == 400)
        #expect(try await send(.put, "/latest/api/token", [ttl: "21601"]).0 == 400)
        #expect(try await send(.put, "/latest/api/token", [ttl: "60", HTTPField.Name("X-Forwarded-For")!: "10.0.0.1"]).0 == 403)
        let (status, token) = try await send(.put, "/latest/api/token", [ttl: "60"])
        #expect(status == 200 && token.count >= 40)
        #expect(try await send(.get, "/latest/meta-data/iam/security-credentials/", [tokenField: token]) == (200, "worker"))
        #expect(try await send(.get, "/latest/meta-data/placement/region", [tokenField: token]) == (200, "eu-west-3"))
        #expect(try await send(.get, "/latest/meta-data/iam/security-credentials/other", [tokenField: token]).0 == 404)
        let (_, document) = try await send(.get, "/latest/meta-data/iam/security-credentials/worker", [tokenField: token])
        let fields = try #require(JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: String])
        #expect(fields["AccessKeyId"] == "AKIDEMULATED" && fields["SecretAccessKey"] == "emulated-secret" && fields["Code"] == "Success")
        #expect(fields["Expiration"] == "2027-01-15T09:00:00Z")  // long-term keys: now + 1 h
        now.withLock { $0 += 59 }
        #expect(try await send(.get, "/latest/meta-data/placement/region", [tokenField: token]).0 == 200)
        now.withLock { $0 += 2 }
        #expect(try await send(.get, "/latest/meta-data/placement/region", [tokenField: token]).0 == 401)
        // Issue 45, item 6: a head trickled a byte every 0.2 s held a connection for ever; it
        // is closed once the head has had 10 s (the client gives up at 15 s: "timeout").
        let port = String(base.split(separator: ":").last ?? "")
        #expect(try await Peers.python("scripts/oracles/raw_http.py", ["127.0.0.1", port, "slow", "15"]).trimmingCharacters(in: .whitespacesAndNewlines) == "closed")
    }
}

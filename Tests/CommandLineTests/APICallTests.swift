import Foundation
import IntegrationSupport
import Testing

/// `multiauth request` against the verifying API server on 127.0.0.1: API Gateway's checks,
/// recomputed with botocore (IAM), a key list (API_KEY) and moto's JWKS (user pools).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct APICallTests {
    var iamEnvironment: [String: String] {
        ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret,
         "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]
    }

    func iam(_ target: String, _ extra: [String] = [], environment: [String: String]? = nil, base: String = Peers.api) async throws -> CLI.Run {
        try await CLI.run(
            ["request", base + target, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api", "--fail"] + extra,
            environment: environment ?? iamEnvironment)
    }

    @Test(arguments: [
        "/iam/plain",
        "/iam/with%20space/and%20more",
        "/iam/utf8/%E1%88%B4/%C3%A9t%C3%A9",
        "/iam/q?plus=a%2Bb&slash=%2F&eq=c%3Dd&amp=x%26y",
        "/iam/repeated?k=2&k=1&k=10&a",
        "/iam/dots/./x/../y",
    ])
    func iamCallsAreAcceptedByTheVerifier(target: String) async throws {
        let run = try await iam(target)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Peers.echo(run).target == target)
    }

    @Test func iamWithASessionTokenAndABodyAndHeaders() async throws {
        var environment = iamEnvironment
        environment["AWS_SESSION_TOKEN"] = "session-token-\(UUID().uuidString)"
        let run = try await iam("/iam/post", ["-X", "POST", "-d", #"{"n":1}"#, "-H", "Content-Type: application/json", "-H", "X-Custom:  a   b "],
                          environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try Peers.echo(run)
        #expect(echo.headers.contains { $0[0].lowercased() == "x-amz-security-token" })
        #expect(echo.bodyLength == 7)
        #expect(!echo.headers.contains { ["expect", "accept"].contains($0[0].lowercased()) })
    }

    @Test func aWrongSecretIsRejectedWithAPIGatewaysMessage() async throws {
        var environment = iamEnvironment
        environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret"
        let run = try await CLI.run(
            ["request", Peers.api + "/iam/x", "--auth", "iam", "--region", "us-east-1", "--service", "execute-api", "-i"],
            environment: environment)
        #expect(run.stdout.hasPrefix("HTTP 403"))
        #expect(run.stdout.contains("The request signature we calculated does not match"))
        #expect(!run.stdout.contains("wrong-secret") && !run.stderr.contains("wrong-secret"))
    }

    @Test func aClockTwentyMinutesOffRecoversThroughTheDateHeader() async throws {
        let run = try await iam("/iam/skew", base: Peers.skewedAPI)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func apiKeysAreCheckedAndNeverPrinted() async throws {
        let good = try await CLI.run(["request", Peers.api + "/apikey/x", "--auth", "api-key", "--api-key", Peers.apiKey, "-v"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stderr.contains("x-api-key: <redacted>"))
        #expect(!good.stderr.contains(Peers.apiKey))
        let fromEnvironment = try await CLI.run(
            ["request", Peers.api + "/apikey/x", "--auth", "api-key", "--fail"], environment: ["MULTIAUTH_API_KEY": Peers.apiKey])
        #expect(fromEnvironment.status == 0)
        let bad = try await CLI.run(["request", Peers.api + "/apikey/x", "--auth", "api-key", "--api-key", "nope", "--fail"])
        #expect(bad.status == 22)
    }

    /// Issue 45, item 8: a key typed on the command line is in /proc/PID/cmdline for every
    /// local user. It still works, with a warning naming the safer ways; `@FILE` reads it from
    /// a file only its owner can read, and a file others can read is refused.
    @Test func aKeyOnTheCommandLineIsWarnedAboutAndAKeyFileIsRead() async throws {
        let typed = try await CLI.run(["request", Peers.api + "/apikey/x", "--auth", "api-key", "--api-key", Peers.apiKey, "--fail"])
        #expect(typed.status == 0 && typed.stderr.contains("warning: --api-key on the command line is visible to every local user"), "\(typed.stderr)")
        let folder = try ScratchFolder("multiauth-key-file")
        defer { folder.remove() }
        let path = folder.path + "/api-key"
        #expect(FileManager.default.createFile(atPath: path, contents: Data((Peers.apiKey + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        let fromFile = try await CLI.run(["request", Peers.api + "/apikey/x", "--auth", "api-key", "--api-key", "@" + path, "--fail"])
        #expect(fromFile.status == 0 && fromFile.stderr.isEmpty, "\(fromFile.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let open = try await CLI.run(["request", Peers.api + "/apikey/x", "--auth", "api-key", "--api-key", "@" + path, "--fail"])
        #expect(open.status != 0 && open.stderr.contains("chmod 600"), "\(open.stderr)")
    }

    @Test func userPoolTokensFromMotoAreAccepted() async throws {
        let setup = try #require(Peers.setup)
        let raw = try await CLI.run(["request", Peers.api + "/jwt/x", "--auth", "user-pools", "--token", setup.idToken, "--fail"])
        #expect(raw.status == 0, "\(raw.stderr)")
        let bearer = try await CLI.run(
            ["request", Peers.api + "/jwt/x", "--auth", "oidc", "--token-command", "printf %s '\(setup.idToken)'", "--bearer", "--fail"])
        #expect(bearer.status == 0, "\(bearer.stderr)")
        let forged = try await CLI.run(["request", Peers.api + "/jwt/x", "--auth", "user-pools", "--token", setup.idToken + "x", "--fail"])
        #expect(forged.status == 22)
    }

    @Test func verboseShowsTheStagesWithTheTokenRedacted() async throws {
        var environment = iamEnvironment
        let token = "tok-\(UUID().uuidString)"
        environment["AWS_SESSION_TOKEN"] = token
        let run = try await iam("/iam/v", ["-v"], environment: environment)
        #expect(run.stderr.contains("* canonical request:"))
        #expect(run.stderr.contains("x-amz-security-token:<redacted>"))
        #expect(!run.stderr.contains(token) && !run.stdout.contains(Peers.secret) && !run.stderr.contains(Peers.secret))
    }

    @Test(arguments: [[], ["--chunked", "--trailer", "crc32"]])
    func aTwoHundredMebibyteBodyStreamsInFlatMemory(extra: [String]) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-200mib-\(UUID().uuidString)").path
        let handle = try #require(FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil)
        let chunk = Data(repeating: 0x5a, count: 1 << 20)
        for _ in 0..<200 { try handle.write(contentsOf: chunk) }
        try handle.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let measure = Process()
        measure.executableURL = URL(fileURLWithPath: Paths.python)
        measure.arguments = Paths.pythonArguments + [
            Paths.repository.appendingPathComponent("scripts/peers/max_rss.py").path, Paths.multiauth.path, "request", "-X", "PUT",
            Peers.api + "/iam/upload", "--auth", "iam", "--region", "us-east-1", "--service", "execute-api", "--fail",
            "--data-binary", "@" + path,
        ] + extra
        var environment = ProcessInfo.processInfo.environment
        environment.merge(iamEnvironment) { $1 }
        measure.environment = environment
        let output = Pipe()
        measure.standardOutput = output
        let (status, text) = try await offPool { () throws -> (Int32, String) in
            try measure.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            measure.waitUntilExit()
            return (measure.terminationStatus, text)
        }
        #expect(status == 0, "\(text)")
        let lines = text.split(separator: "\n")
        let maxRSSKiB = Int(lines.last ?? "") ?? Int.max
        #expect(maxRSSKiB < 64 * 1024, "max RSS \(maxRSSKiB) KiB")
        let echo = try JSONDecoder().decode([String: AnyCodableValue].self, from: Data(lines.dropLast().joined(separator: "\n").utf8))
        if extra.isEmpty { #expect(echo["body_length"] == .int(200 << 20)) } else { #expect(echo["body_length"] != .int(200 << 20)) }
    }

    @Test func aTLSFailureIsItsOwnError() async throws {
        let https = Peers.api.replacingOccurrences(of: "http://", with: "https://") + "/open/x"
        let run = try await CLI.run(["request", https, "--retries", "1"])
        #expect(run.status == 35, "\(run.stderr)")
        #expect(run.stderr.contains("TLS failure"))
    }

    @Test func noCommandEverPrintsASecretTokenOrKey() async throws {
        let token = "session-\(UUID().uuidString)"
        var environment = iamEnvironment
        environment["AWS_SESSION_TOKEN"] = token
        let runs = await [
            try iam("/iam/a", ["-v", "-o", "/dev/null"], environment: environment),
            try iam("/iam/a", ["-v", "-o", "/dev/null", "-i"], environment: environment.merging(["AWS_SECRET_ACCESS_KEY": "bad"]) { $1 }),
            try await CLI.run(["request", Peers.api + "/apikey/a", "--auth", "api-key", "--api-key", Peers.apiKey, "-v", "-o", "/dev/null"]),
            try await CLI.run(["request", "http://127.0.0.1:1/a", "--auth", "api-key", "--api-key", Peers.apiKey, "-v"]),
            try await CLI.run(["request", Peers.api + "/jwt/a", "--auth", "lambda", "--token", token, "-v", "-o", "/dev/null"]),
        ]
        for run in runs {
            for secret in [Peers.secret, token, Peers.apiKey] {
                #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "\(run.stderr)")
            }
        }
    }

    @Test func serverErrorsAreRetriedWithinTheAttemptBudget() async throws {
        let id = UUID().uuidString
        let recovered = try await CLI.run(["request", Peers.api + "/flaky/\(id)/2", "--retries", "3", "--fail"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let other = UUID().uuidString
        let exhausted = try await CLI.run(["request", Peers.api + "/flaky/\(other)/5", "--retries", "2", "-i"])
        #expect(exhausted.stdout.hasPrefix("HTTP 503"))
    }

    @Test func unreachableHostsAndMissingRegionsAreOneLineErrors() async throws {
        let down = try await CLI.run(["request", "http://127.0.0.1:1/x"])
        #expect(down.status == 7)
        #expect(down.stderr.split(separator: "\n").count == 1)
        let noRegion = try await CLI.run(["request", Peers.api + "/iam/x", "--auth", "iam"], environment: iamEnvironment)
        #expect(noRegion.status != 0)
        #expect(noRegion.stderr.contains("--region"))
    }
}

/// Just enough JSON value decoding for the echo's numbers.
enum AnyCodableValue: Decodable, Equatable {
    case int(Int), string(String), other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) { self = .int(value) } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else { self = .other }
    }
}

/// libcurl is opened at the first request only: `sign` never loads it, `request` does (the
/// dynamic loader's own trace, LD_DEBUG=files, says which libraries a process opened).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct LazyLibcurlTests {
    @Test func signDoesNotLoadLibcurlAndRequestDoes() async throws {
        let sign = try await CLI.run(CLI.base + ["--url", "https://example.amazonaws.com/"], environment: ["LD_DEBUG": "files"])
        #expect(sign.status == 0, "\(sign.stderr.suffix(300))")
        #expect(sign.stderr.contains("libcrypto") && !sign.stderr.contains("libcurl"))
        let request = try await CLI.run(["request", Peers.api + "/open/lazy", "--fail"], environment: ["LD_DEBUG": "files"])
        #expect(request.status == 0 && request.stderr.contains("libcurl"))
    }
}

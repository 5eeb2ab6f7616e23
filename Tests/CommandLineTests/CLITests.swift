import Foundation
import IntegrationSupport
import Testing

/// Runs the built `multiauth` executable as a user would.
@Suite(.timeLimit(.minutes(5))) struct CLITests {
    static func json(_ run: CLI.Run) throws -> [String: String] {
        try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String])
    }

    static let sharedSuiteMissing: Comment = "the AWS signing suites are not present (MULTIAUTH_SIGNING_SUITES)"

    @Test(.enabled(if: Paths.exists(Paths.sharedSuite), sharedSuiteMissing))
    func jsonOutputHasEveryStageAndMatchesTheOfficialGetVanilla() async throws {
        let folder = Paths.sharedSuite.appendingPathComponent("v4/get-vanilla")
        let run = try await CLI.run(CLI.base + ["--url", "https://example.amazonaws.com/", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run)
        #expect(Set(object.keys) == [
            "canonical_request", "string_to_sign", "signature", "signed_headers", "credential_scope", "authorization",
            "signed_request",
        ])
        #expect(object["credential_scope"] == "20150830/us-east-1/service/aws4_request")
        let expected = try String(contentsOf: folder.appendingPathComponent("header-signature.txt"), encoding: .utf8)
        #expect(object["signature"] == expected.trimmingCharacters(in: .whitespacesAndNewlines))
        let canonical = try String(contentsOf: folder.appendingPathComponent("header-canonical-request.txt"), encoding: .utf8)
        #expect(object["canonical_request"] == canonical)
    }

    @Test(.enabled(if: Paths.exists(Paths.sharedSuite), sharedSuiteMissing))
    func requestAndContextFilesReproduceAnOfficialCase() async throws {
        let folder = Paths.sharedSuite.appendingPathComponent("v4/post-x-www-form-urlencoded")
        let run = try await CLI.run([
            "sign", "--request", folder.appendingPathComponent("request.txt").path,
            "--context", folder.appendingPathComponent("context.json").path, "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try String(contentsOf: folder.appendingPathComponent("header-signature.txt"), encoding: .utf8)
        #expect(try Self.json(run)["signature"] == expected.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func presignPrintsASignedURLAndNoAuthorization() async throws {
        let run = try await CLI.run(CLI.base + ["--url", "https://example.amazonaws.com/?a=1", "--presign", "--expires", "60", "--format", "json"])
        let object = try Self.json(run)
        #expect(object["authorization"] == nil)
        #expect(object["signed_url"]?.hasPrefix("https://example.amazonaws.com/?a=1&X-Amz-Algorithm=") == true)
        #expect(object["signed_url"]?.contains("X-Amz-Expires=60") == true)
    }

    @Test func headerValuesMayBeEmptyOrHoldColons() async throws {
        let run = try await CLI.run(CLI.base + [
            "--url", "https://example.amazonaws.com/", "-H", "X-Empty:", "-H", "X-Time: 12:30:00", "--format", "json",
        ])
        let canonical = try #require(try Self.json(run)["canonical_request"])
        #expect(canonical.contains("\nx-empty:\n"))
        #expect(canonical.contains("\nx-time:12:30:00\n"))
    }

    @Test func credentialsComeFromTheEnvironment() async throws {
        let run = try await CLI.run(
            ["sign", "--region", "us-east-1", "--service", "service", "--url", "https://example.amazonaws.com/"],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_SESSION_TOKEN": "envtoken"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Credential=AKIDENV/"))
        #expect(run.stdout.contains("X-Amz-Security-Token:envtoken"))
        #expect(!run.stdout.contains("envsecret"))
    }

    @Test(arguments: [
        (["--url", "ftp://example.com/"], "--url"),
        (["--url", "https://exa mple.com/"], "--url"),
        (["--url", "https://example.com/", "-H", "NoColon"], "-H"),
        (["--url", "https://example.com/", "-H", "Bad Name: v"], "-H"),
        (["--url", "https://example.com/", "--date", "2015-08-30"], "--date"),
        (["--url", "https://example.com/", "--presign", "--expires", "604801"], "--expires"),
        (["--url", "https://example.com/", "--data-file", "/nonexistent/body.bin"], "--data-file"),
        (["--request", "/nonexistent/request.txt"], "--request"),
        ([], "--url"),
    ])
    func badInputIsOneLineNamingTheArgumentAndNeverTheSecret(arguments: [String], names: String) async throws {
        let run = try await CLI.run(CLI.base + arguments)
        #expect(run.status != 0)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(names), "\(run.stderr)")
        #expect(!run.stderr.contains(CLI.secret) && !run.stdout.contains(CLI.secret))
    }

    @Test func missingCredentialsAreNamed() async throws {
        let run = try await CLI.run(["sign", "--region", "r", "--service", "s", "--url", "https://example.com/"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("missing credentials"))
    }

    @Test func vectorsVerifyEndsWithTheCountLine() async throws {
        let run = try await CLI.run(["vectors", "verify", Paths.derived.path])
        #expect(run.status == 0)
        let last = run.stdout.split(separator: "\n").last.map(String.init)
        #expect(last?.hasSuffix(" passed, 0 failed") == true)
    }

    @Test func vectorsVerifyReportsADiffAndFailsOnAWrongExpectation() async throws {
        let source = Paths.derived.appendingPathComponent("s3/list-objects")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-broken-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("header-string-to-sign.txt")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "us-east-1", with: "us-west-2").write(to: file, atomically: true, encoding: .utf8)
        let run = try await CLI.run(["vectors", "verify", folder.path])
        #expect(run.status != 0)
        #expect(run.stdout.contains("FAIL"))
        #expect(run.stdout.contains("first difference at line 3"))
        #expect(run.stdout.hasSuffix("0 passed, 1 failed\n"))
    }
}

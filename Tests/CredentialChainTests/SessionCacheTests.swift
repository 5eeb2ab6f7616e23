import Foundation
import IntegrationSupport
import Testing

/// Sessions kept in the encrypted store and MFA profiles, against the STS stand-in that
/// checks every signature with botocore and records every call (MFA parameters included).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason)) struct SessionCacheTests {
    /// A folder with a config file (a base profile with the stand-in's keys, then `profiles`),
    /// a store opened by a key file, and the environment that points `multiauth` at them.
    struct Setup {
        let folder: ScratchFolder
        let role: String

        init(_ profiles: (String) -> String) async throws {
            folder = try ScratchFolder("multiauth-sessions")
            role = "arn:aws:iam::123456789012:role/cache-\(UUID().uuidString.prefix(8))"
            let config = "[profile base]\naws_access_key_id = \(Peers.keyId)\naws_secret_access_key = \(Peers.secret)\nregion = us-east-1\n"
            try Data((config + profiles(role)).utf8).write(to: folder.url.appendingPathComponent("config"))
        }

        var environment: [String: String] {
            [
                "AWS_CONFIG_FILE": folder.path + "/config", "AWS_SHARED_CREDENTIALS_FILE": folder.path + "/none", "AWS_ENDPOINT_URL_STS": Peers.sts,
                "MULTIAUTH_STORE": folder.path + "/store", "MULTIAUTH_STORE_KEY_FILE": folder.path + "/key",
            ]
        }

        func initStore() async throws {
            let created = try await CLI.run(["store", "init"], environment: environment)
            try #require(created.status == 0, "\(created.stderr)")
        }

        func calls() async throws -> [[String: String]] { try await Peers.stsCalls("role_arn", role) }
    }

    static func roleProfile(_ role: String) -> String { "[profile role]\nrole_arn = \(role)\nsource_profile = base\nregion = us-east-1\n" }

    /// boto3 against the stand-in: a good signature passes, a wrong secret and a wrong MFA code
    /// are refused with STS's codes, the issued session signs GetCallerIdentity, and every call
    /// is recorded with its outcome.
    @Test func theSTSStandInAgreesWithBoto3() async throws {
        let role = "arn:aws:iam::123456789012:role/boto3-\(UUID().uuidString.prefix(8))"
        let output = try await Peers.python("scripts/oracles/boto3_sts.py", [Peers.sts, Peers.keyId, Peers.secret, Peers.mfaSerial, Peers.mfaCode, role])
        let results = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        #expect(results == [
            "assume_role": "ok", "wrong_secret": "SignatureDoesNotMatch", "wrong_mfa": "AccessDenied", "right_mfa": "ok", "session_token": "ok",
            "caller": "ok", "caller_arn": "arn:aws:sts::123456789012:assumed-role/\(role.split(separator: "/").last!)/boto3",
        ])
        let outcomes = try await Peers.stsCalls("role_arn", role).map { $0["outcome"] ?? "" }
        #expect(outcomes == ["ok", "SignatureDoesNotMatch", "AccessDenied", "ok"])
    }

    /// Eight processes at once, as eight `aws` commands with this credential_process would be:
    /// one AssumeRole, and all eight print the same session. botocore's own ProcessProvider
    /// then resolves the cached session, with no further call.
    @Test func eightConcurrentProcessesCauseOneAssumeRole() async throws {
        let setup = try await Setup { role in Self.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
            for _ in 0..<8 {
                group.addTask { try await CLI.run(["credentials", "--profile", "role", "--format", "process"], environment: setup.environment) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let keys = try runs.map { run in
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            return object?["AccessKeyId"] as? String ?? ""
        }
        #expect(Set(keys).count == 1 && keys[0].hasPrefix("ASIA"), "\(keys)")
        #expect(try await setup.calls().map { $0["action"] } == ["AssumeRole"])

        let command = "\(Paths.multiauth.path) credentials --profile role --format process"
        try Data((try String(contentsOfFile: setup.folder.path + "/config", encoding: .utf8) + "[profile tool]\ncredential_process = \(command)\n").utf8)
            .write(to: setup.folder.url.appendingPathComponent("config"))
        let resolved = try await ContainerTokenUsers.CredentialsCommandTests.botocoreSession(setup.environment.merging(["AWS_PROFILE": "tool"]) { $1 })
        #expect(resolved["method"] == "custom-process" && resolved["access_key"] == keys[0], "\(resolved)")
        #expect(try await setup.calls().count == 1)
    }

    /// A profile with mfa_serial and duration_seconds: the first command runs the code command
    /// once and sends SerialNumber, TokenCode and DurationSeconds; the next ones, a second
    /// later or eight at once, use the cached session and ask for no code.
    @Test func anMFAProfileAsksForACodeOnceWhileTheSessionLasts() async throws {
        let setup = try await Setup { role in
            "[profile mfa]\nrole_arn = \(role)\nsource_profile = base\nmfa_serial = \(Peers.mfaSerial)\nduration_seconds = 1800\nrole_session_name = tester\n"
        }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let asked = setup.folder.path + "/asked"
        let codeCommand = try setup.folder.script("code", "echo asked >> '\(asked)'; echo \(Peers.mfaCode)")
        let first = try await CLI.run(["credentials", "--profile", "mfa", "--mfa-code-command", codeCommand], environment: setup.environment)
        #expect(first.status == 0 && first.stdout.hasPrefix("source: STS AssumeRole\n"), "\(first.stderr)")
        let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await CLI.run(["credentials", "--profile", "mfa", "--format", "process", "--mfa-code-command", codeCommand], environment: setup.environment)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.allSatisfy { $0.status == 0 })
        #expect(try String(contentsOfFile: asked, encoding: .utf8) == "asked\n")
        let calls = try await setup.calls()
        #expect(calls.count == 1)
        #expect(calls.first?["serial"] == Peers.mfaSerial && calls.first?["duration"] == "1800" && calls.first?["session_name"] == "tester")
        #expect(calls.first?["outcome"] == "ok")
    }

    /// An MFA profile with no cached session: no code and no terminal exits 9 naming
    /// mfa_serial, at once; a wrong code is STS's AccessDenied (exit 1); a code that is not six
    /// digits never reaches STS. No message holds the code or a key.
    @Test func anMFAProfileWithoutAUsableCodeFailsClearly() async throws {
        let setup = try await Setup { role in "[profile mfa]\nrole_arn = \(role)\nsource_profile = base\nmfa_serial = \(Peers.mfaSerial)\n" }
        defer { setup.folder.remove() }
        try await setup.initStore()
        // setsid: no controlling terminal, so no prompt can be opened.
        let finished = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/setsid"), ["--wait", Paths.multiauth.path, "credentials", "--profile", "mfa"],
            environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 }, limit: 60)
        let stderr = String(decoding: finished.stderr, as: UTF8.self)
        #expect(finished.status == 9 && stderr.contains("mfa_serial \(Peers.mfaSerial)") && stderr.contains("needs an MFA code"), "\(stderr)")
        let wrong = try await CLI.run(["credentials", "--profile", "mfa", "--mfa-code", "654321"], environment: setup.environment)
        #expect(wrong.status == 1 && wrong.stderr.contains("AccessDenied") && !wrong.stderr.contains("654321"), "\(wrong.stderr)")
        let short = try await CLI.run(["credentials", "--profile", "mfa", "--mfa-code", "12345"], environment: setup.environment)
        #expect(short.status == 9 && short.stderr.contains("not six digits") && !short.stderr.contains("12345\""), "\(short.stderr)")
        #expect(try await setup.calls().map { $0["outcome"] } == ["AccessDenied"])
        for run in [wrong, short] { #expect(!run.stderr.contains(Peers.secret)) }
    }

    /// Without a usable store the session is obtained each time, with a one-line warning
    /// saying why (no store; a wrong key), and the command still succeeds; the wrong key never
    /// replaces anything in the store.
    @Test func withoutAUsableStoreNothingIsCachedAndAWarningSaysWhy() async throws {
        let setup = try await Setup { role in Self.roleProfile(role) }
        defer { setup.folder.remove() }
        let missing = try await CLI.run(["credentials", "--profile", "role"], environment: setup.environment)
        #expect(missing.status == 0 && missing.stderr == "multiauth: warning: sessions are not cached (reason=no store at \(setup.folder.path)/store)\n", "\(missing.stderr)")
        try await setup.initStore()
        let before = try Data(contentsOf: setup.folder.url.appendingPathComponent("store"))
        let otherKey = setup.folder.path + "/other-key"
        try Data(String(repeating: "ab", count: 32).utf8).write(to: URL(fileURLWithPath: otherKey))
        chmod(otherKey, 0o600)
        let wrongKey = try await CLI.run(
            ["credentials", "--profile", "role"], environment: setup.environment.merging(["MULTIAUTH_STORE_KEY_FILE": otherKey]) { $1 })
        #expect(wrongKey.status == 0 && wrongKey.stderr.contains("sessions are not cached") && wrongKey.stderr.contains("wrong passphrase or key file"), "\(wrongKey.stderr)")
        #expect(try Data(contentsOf: setup.folder.url.appendingPathComponent("store")) == before)
        let off = try await CLI.run(["credentials", "--profile", "role", "--no-session-cache"], environment: setup.environment)
        #expect(off.status == 0 && off.stderr.isEmpty)
        #expect(try await setup.calls().count == 3)
    }

    /// A session is kept for the settings it was obtained with: a profile whose
    /// duration_seconds changed gets a new one (replacing the old item, the only one touched),
    /// and then that one is reused.
    @Test func aChangedProfileGetsANewSession() async throws {
        let setup = try await Setup { role in Self.roleProfile(role) }
        defer { setup.folder.remove() }
        try await setup.initStore()
        let arguments = ["credentials", "--profile", "role", "--format", "process"]
        #expect(try await CLI.run(arguments, environment: setup.environment).status == 0)
        let config = setup.folder.url.appendingPathComponent("config")
        try Data((try String(contentsOf: config, encoding: .utf8) + "duration_seconds = 7200\n").utf8).write(to: config)
        for _ in 0..<2 { #expect(try await CLI.run(arguments, environment: setup.environment).status == 0) }
        #expect(try await setup.calls().map { $0["duration"] ?? "none" } == ["none", "7200"])
        let listed = try await CLI.run(["store", "list"], environment: setup.environment)
        #expect(listed.stdout.components(separatedBy: "multiauth.session").count == 2, "\(listed.stdout)")
    }
}

import Foundation
import IntegrationSupport
import Testing

/// IAM Roles Anywhere against the stand-in served by the STS peer over HTTPS
/// (scripts/peers/rolesanywhere_peer.py), which checks the X.509 signature, the chain to its
/// trust anchor and the serial number in the scope, and whose sessions the STS stand-in then
/// accepts. Client identities are made per test with `cryptography` (scripts/oracles/x509_identity.py).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.rolesAnywhereAvailable, Peers.reason)) struct RolesAnywhereTests {
    static let profileArn = "arn:aws:rolesanywhere:us-east-1:123456789012:profile/p-multiauth"

    /// A folder with an identity issued by the trust anchor's CA, a role of its own (the
    /// calls are counted by it), and a store opened by a key file.
    struct Setup {
        let folder: ScratchFolder
        let role = "arn:aws:iam::123456789012:role/ra-\(UUID().uuidString.prefix(8))"
        let serial: String
        static let passphrase = "identity-passphrase"

        init(kind: String = "ec", validFrom: Double = -1, validUntil: Double = 1, intermediate: Bool = false, caCert: String? = nil, caKey: String? = nil) async throws {
            folder = try ScratchFolder("multiauth-rolesanywhere")
            var arguments = [
                "--out", folder.path, "--ca-cert", caCert ?? Peers.rolesAnywhereCA, "--ca-key", caKey ?? Peers.rolesAnywhereCAKey, "--kind", kind,
                "--valid-from", String(validFrom), "--valid-until", String(validUntil), "--passphrase", Self.passphrase,
            ]
            if intermediate { arguments.append("--intermediate") }
            let made = try await Peers.python("scripts/oracles/x509_identity.py", arguments)
            serial = try #require(JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: String])["serial"] ?? ""
        }

        func path(_ name: String) -> String { folder.path + "/" + name }

        /// `aws_signing_helper`'s flags for this identity (the key in `key`), and the stand-in.
        func flags(key: String? = "key-pkcs8.pem", certificate: String = "cert.pem") -> [String] {
            ["--certificate", path(certificate), "--trust-anchor-arn", Peers.rolesAnywhereTrustAnchor, "--profile-arn", RolesAnywhereTests.profileArn,
             "--role-arn", role, "--endpoint", Peers.rolesAnywhere] + (key.map { ["--private-key", path($0)] } ?? [])
        }

        var environment: [String: String] {
            ["AWS_CA_BUNDLE": Peers.tlsCA, "MULTIAUTH_STORE": path("store"), "MULTIAUTH_STORE_KEY_FILE": path("store-key")]
        }

        func calls() async throws -> [[String: String]] { try await Peers.stsCalls("role_arn", role) }

        func credentialProcess(_ extra: [String] = [], key: String? = "key-pkcs8.pem", environment more: [String: String] = [:]) async throws -> CLI.Run {
            try await CLI.run(["rolesanywhere", "credential-process"] + flags(key: key) + extra, environment: environment.merging(more) { $1 })
        }
    }

    /// AWS's own Python client (iam-rolesanywhere-session, its own signing code) against the
    /// stand-in: RSA and ECDSA leaves and a chain through an intermediate are accepted and
    /// their sessions sign STS calls; a flipped signature digit, a serial that is not the
    /// certificate's, and a certificate from another CA are refused.
    @Test func theStandInAgreesWithAWSsPythonClient() async throws {
        func client(_ setup: Setup, key: String = "key-pkcs8.pem", _ extra: [String] = []) async throws -> [String: Any] {
            var arguments = [
                "--endpoint", String(Peers.rolesAnywhere.dropFirst("https://".count)), "--ca-bundle", Peers.tlsCA, "--certificate", setup.path("cert.pem"),
                "--private-key", setup.path(key), "--trust-anchor-arn", Peers.rolesAnywhereTrustAnchor, "--profile-arn", Self.profileArn,
                "--role-arn", setup.role, "--call-sts", Peers.sts,
            ]
            if FileManager.default.fileExists(atPath: setup.path("chain.pem")) { arguments += ["--intermediates", setup.path("chain.pem")] }
            let output = try await Peers.python("scripts/peers/rolesanywhere_client.py", arguments + extra)
            return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }
        for (kind, intermediate) in [("rsa", false), ("ec", false), ("ec", true)] {
            let setup = try await Setup(kind: kind, intermediate: intermediate)
            defer { setup.folder.remove() }
            let accepted = try await client(setup)
            #expect(accepted["ok"] as? Bool == true, "\(kind): \(accepted)")
            #expect((accepted["arn"] as? String)?.hasSuffix("/\(setup.role.split(separator: "/").last!)/\(setup.serial)") == true, "\(accepted)")
            let tampered = try await client(setup, ["--tamper", "signature"])
            #expect(tampered["status"] as? Int == 403 && tampered["message"] as? String == "Signature does not match", "\(tampered)")
            let otherSerial = try await client(setup, ["--tamper", "serial"])
            #expect((otherSerial["message"] as? String)?.contains("serial number does not match") == true, "\(otherSerial)")
            let outcomes = try await setup.calls().map { $0["outcome"] ?? "" }
            #expect(outcomes.count == 3 && outcomes[0] == "ok" && outcomes.dropFirst().allSatisfy { $0.hasPrefix("AccessDeniedException") }, "\(outcomes)")
        }
        let stranger = try await StrangerCA()
        defer { stranger.folder.remove() }
        let untrusted = try await Setup(caCert: stranger.certificate, caKey: stranger.key)
        defer { untrusted.folder.remove() }
        let refused = try await client(untrusted)
        #expect((refused["message"] as? String)?.contains("does not chain to the trust anchor") == true, "\(refused)")
    }

    /// A CA the trust anchor does not name.
    struct StrangerCA {
        let folder: ScratchFolder
        var certificate: String { folder.path + "/ca-cert.pem" }
        var key: String { folder.path + "/ca-key.pem" }

        init() async throws {
            folder = try ScratchFolder("multiauth-stranger-ca")
            let made = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=stranger",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-keyout", folder.path + "/ca-key.pem", "-out", folder.path + "/ca-cert.pem"])
            try #require(made.status == 0)
        }
    }

    /// MultiAuth's own signing, RSA and ECDSA, with each key form (PKCS#1 or SEC1, PKCS#8,
    /// encrypted PKCS#8 with its passphrase from the variable or a file, a PKCS#12 bundle) and
    /// with an intermediate: every one is accepted by the stand-in, and the session signs an
    /// STS call botocore makes through the credential_process line.
    @Test func everyKeyFormIsAcceptedAndBotocoreUsesTheSession() async throws {
        for (kind, intermediate) in [("rsa", false), ("ec", true)] {
            let setup = try await Setup(kind: kind, intermediate: intermediate)
            defer { setup.folder.remove() }
            let chain = intermediate ? ["--intermediates", setup.path("chain.pem")] : []
            let passphraseFile = setup.path("passphrase")
            try Data(Setup.passphrase.utf8).write(to: URL(fileURLWithPath: passphraseFile))
            chmod(passphraseFile, 0o600)
            let runs = [
                try await setup.credentialProcess(chain + ["--no-session-cache"], key: "key-traditional.pem"),
                try await setup.credentialProcess(chain + ["--no-session-cache"]),
                try await setup.credentialProcess(chain + ["--no-session-cache"], key: "key-encrypted.pem", environment: ["MULTIAUTH_PRIVATE_KEY_PASSPHRASE": Setup.passphrase]),
                try await setup.credentialProcess(chain + ["--no-session-cache", "--private-key-passphrase-file", passphraseFile], key: "key-encrypted.pem"),
                try await CLI.run(
                    ["rolesanywhere", "credential-process", "--no-session-cache", "--private-key-passphrase-file", passphraseFile] + setup.flags(key: nil, certificate: "bundle.p12"),
                    environment: setup.environment),
            ]
            for (index, run) in runs.enumerated() { #expect(run.status == 0 && run.stdout.contains("\"AccessKeyId\":\"ASIA"), "\(kind) form \(index): \(run.stderr)") }
            #expect(try await setup.calls().map { $0["outcome"] } == Array(repeating: "ok", count: 5))

            let line = ([Paths.multiauth.path, "rolesanywhere", "credential-process", "--no-session-cache"] + setup.flags() + chain).joined(separator: " ")
            let files = try SharedFiles(config: "[profile ra]\ncredential_process = \(line)\n")
            defer { files.remove() }
            let identity = try await Peers.oracle("scripts/oracles/botocore_caller_identity.py", environment: [
                "AWS_PROFILE": "ra", "AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_ENDPOINT_URL_STS": Peers.sts,
                "AWS_CA_BUNDLE": Peers.tlsCA,
            ])
            #expect(identity["method"] == "custom-process" && identity["arn"]?.hasSuffix("/\(setup.serial)") == true, "\(identity)")
        }
    }

    /// Fifty `credential-process` runs at once on one store, as a build tool's fifty `aws`
    /// commands: one CreateSession, and all fifty print the same session; the next run reads
    /// it from the store.
    @Test func fiftyConcurrentRunsMakeOneCreateSession() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let created = try await CLI.run(["store", "init"], environment: setup.environment)
        try #require(created.status == 0, "\(created.stderr)")
        let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
            for _ in 0..<50 { group.addTask { try await setup.credentialProcess() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let keys = try runs.map { run in
            #expect(run.status == 0, "\(run.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["AccessKeyId"] as? String ?? ""
        }
        #expect(Set(keys).count == 1 && keys[0].hasPrefix("ASIA"), "\(Set(keys))")
        #expect(try await setup.calls().count == 1)
        let again = try await setup.credentialProcess()
        #expect(again.stdout.contains(keys[0]))
        #expect(try await setup.calls().count == 1)
    }

    /// `serve`: an IMDSv2 endpoint whose session botocore's instance-metadata provider reads
    /// and signs an STS call with; one CreateSession however many requests.
    @Test func serveHandsTheSessionToBotocoreOverIMDS() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let server = try GatewayProcess(["rolesanywhere", "serve", "--port", "0", "--no-session-cache"] + setup.flags(), environment: setup.environment)
        defer { _ = server.stop() }
        for _ in 0..<2 {
            let identity = try await Peers.oracle("scripts/oracles/botocore_caller_identity.py", environment: [
                "AWS_EC2_METADATA_DISABLED": "false", "AWS_EC2_METADATA_SERVICE_ENDPOINT": server.url, "AWS_CONFIG_FILE": "/nonexistent",
                "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_ENDPOINT_URL_STS": Peers.sts,
                // botocore gives the endpoint 1 s by default; the first answer makes a CreateSession,
                // which a loaded machine (fifty processes in the test beside this one) can take longer over.
                "AWS_METADATA_SERVICE_TIMEOUT": "10", "AWS_METADATA_SERVICE_NUM_ATTEMPTS": "2",
            ])
            #expect(identity["method"] == "iam-role" && identity["arn"]?.hasSuffix("/\(setup.serial)") == true, "\(identity) \(server.log)")
        }
        #expect(try await setup.calls().count == 1)
    }

    /// `update`: the profile's keys written into the shared credentials file, every other
    /// line kept, mode 0600; botocore then signs an STS call with that profile.
    @Test func updateWritesTheProfileAndKeepsTheRest() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let file = setup.path("credentials")
        let before = "# kept comment\n[other]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = other-secret\n\n[ra]\nregion = eu-west-1\naws_access_key_id = AKIDSTALE\n"
        try Data(before.utf8).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = Paths.multiauth
        process.arguments = ["rolesanywhere", "update", "--profile", "ra", "--no-session-cache"] + setup.flags()
        process.environment = ProcessInfo.processInfo.environment.merging(setup.environment.merging(["AWS_SHARED_CREDENTIALS_FILE": file]) { $1 }) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var text = before
        for _ in 0..<600 where !text.contains("aws_session_token") {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(5)) == ["# kept comment", "[other]", "aws_access_key_id = AKIDOTHER", "aws_secret_access_key = other-secret", ""], "\(text)")
        #expect(lines[5] == "[ra]" && lines[6].hasPrefix("aws_access_key_id = ASIA") && lines.contains("region = eu-west-1") && !text.contains("AKIDSTALE"), "\(text)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let identity = try await Peers.oracle("scripts/oracles/botocore_caller_identity.py", environment: [
            "AWS_PROFILE": "ra", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": file, "AWS_ENDPOINT_URL_STS": Peers.sts,
        ])
        #expect(identity["method"] == "shared-credentials-file" && identity["arn"]?.hasSuffix("/\(setup.serial)") == true, "\(identity)")
    }

    /// A SoftHSM token of the test's own (its own SOFTHSM2_CONF and token folder), holding the
    /// setup's key and certificate under label `host`, id 01, PIN 1234.
    struct Token {
        static let module = "/usr/lib/softhsm/libsofthsm2.so"
        let environment: [String: String]

        init(_ setup: Setup) throws {
            try FileManager.default.createDirectory(atPath: setup.path("tokens"), withIntermediateDirectories: true)
            try Data("directories.tokendir = \(setup.path("tokens"))\nobjectstore.backend = file\n".utf8).write(to: URL(fileURLWithPath: setup.path("softhsm2.conf")))
            environment = ["SOFTHSM2_CONF": setup.path("softhsm2.conf")]
            let der = setup.path("cert.der")
            for (program, arguments) in [
                ("/usr/bin/softhsm2-util", ["--init-token", "--free", "--label", "multiauth", "--so-pin", "000000", "--pin", "1234"]),
                ("/usr/bin/softhsm2-util", ["--import", setup.path("key-pkcs8.pem"), "--token", "multiauth", "--label", "host", "--id", "01", "--pin", "1234"]),
                ("/usr/bin/openssl", ["x509", "-in", setup.path("cert.pem"), "-outform", "der", "-out", der]),
                ("/usr/bin/pkcs11-tool", ["--module", Self.module, "--token-label", "multiauth", "--login", "--pin", "1234", "--write-object", der, "--type", "cert", "--label", "host", "--id", "01"]),
            ] {
                let done = try ChildProcess.run(URL(fileURLWithPath: program), arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
                try #require(done.status == 0, "\(program) \(arguments[0]): \(String(decoding: done.stderr, as: UTF8.self))")
            }
        }
    }

    /// The key in SoftHSM, the certificate from a file or from the token: accepted by the
    /// stand-in, and fifty concurrent runs on one store make one CreateSession.
    @Test func aKeyInSoftHSMSignsAndFiftyRunsMakeOneSession() async throws {
        for kind in ["ec", "rsa"] {
            let setup = try await Setup(kind: kind)
            defer { setup.folder.remove() }
            let token = try Token(setup)
            let environment = token.environment
            let key = "pkcs11:token=multiauth;object=host?pin-value=1234"
            let fromFile = try await CLI.run(
                ["rolesanywhere", "credential-process", "--no-session-cache", "--pkcs11-lib", Token.module] + setup.flags(key: nil) + ["--private-key", key],
                environment: setup.environment.merging(environment) { $1 })
            #expect(fromFile.status == 0 && fromFile.stdout.contains("\"AccessKeyId\":\"ASIA"), "\(kind): \(fromFile.stderr)")
            let pinFile = setup.path("pin")
            try Data("1234\n".utf8).write(to: URL(fileURLWithPath: pinFile))
            let tokenFlags = ["--certificate", "pkcs11:token=multiauth;id=%01", "--private-key", "pkcs11:token=multiauth;id=%01?pin-source=file:\(pinFile)", "--pkcs11-lib", Token.module]
            let created = try await CLI.run(["store", "init"], environment: setup.environment)
            try #require(created.status == 0, "\(created.stderr)")
            let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await CLI.run(["rolesanywhere", "credential-process"] + setup.flags(key: nil) + tokenFlags, environment: setup.environment.merging(environment) { $1 })
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }?.stderr ?? "")")
            #expect(Set(runs.map(\.stdout)).count == 1)
            #expect(try await setup.calls().count == 2, "one uncached call, then one for the fifty")
        }
    }

    /// A software TPM (swtpm) of the test's own, on a free TCP port pair (the TCTI's control
    /// port is the next one), with a P-256 key made inside it by OpenSSL's tpm2 provider and a
    /// certificate for it from the trust anchor's CA. Stopped by `stop()`.
    struct SoftwareTPM {
        let folder: ScratchFolder
        let tcti: String
        let process: Process

        init(_ folder: ScratchFolder) throws {
            self.folder = folder
            // In the foreground, with no descriptor of ours: stopped by `stop()`. Ready once its
            // pid file is written; a taken port makes it exit, and another is tried.
            var running: (Process, String)?
            for _ in 0..<10 where running == nil {
                let port = Int.random(in: 20_000...60_000)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
                process.arguments = [
                    "socket", "--tpm2", "--tpmstate", "dir=\(folder.path)", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
                    "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--flags", "startup-clear,not-need-init", "--pid", "file=\(folder.path)/swtpm-\(port).pid",
                ]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                for _ in 0..<200 where process.isRunning && !FileManager.default.fileExists(atPath: "\(folder.path)/swtpm-\(port).pid") {
                    Thread.sleep(forTimeInterval: 0.025)
                }
                if process.isRunning { running = (process, "swtpm:host=127.0.0.1,port=\(port)") }
            }
            let (process, tcti) = try #require(running, "swtpm did not start")
            self.process = process
            self.tcti = tcti
            let environment = ProcessInfo.processInfo.environment.merging(["TPM2OPENSSL_TCTI": tcti]) { $1 }
            let path = folder.path
            for arguments in [
                ["genpkey", "-provider", "tpm2", "-provider", "default", "-algorithm", "EC", "-pkeyopt", "group:P-256", "-out", path + "/tpm-key.pem"],
                ["req", "-provider", "tpm2", "-provider", "default", "-propquery", "?provider=tpm2", "-new", "-key", path + "/tpm-key.pem", "-subj", "/CN=tpm-host", "-out", path + "/tpm.csr"],
                ["x509", "-req", "-in", path + "/tpm.csr", "-CA", Peers.rolesAnywhereCA, "-CAkey", Peers.rolesAnywhereCAKey, "-set_serial", "0x\(UInt32.random(in: 1...UInt32.max))",
                 "-days", "1", "-out", path + "/tpm-cert.pem"],
            ] {
                let done = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, environment: environment)
                try #require(done.status == 0, "openssl \(arguments[0]): \(String(decoding: done.stderr, as: UTF8.self))")
            }
        }

        /// SIGKILL: swtpm keeps running on SIGTERM while a client's connection is open.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A key inside a TPM (TSS2 PEM through OpenSSL's tpm2 provider): the stand-in accepts
    /// what it signs, and the key file alone is useless without the TPM (it names the TPM).
    @Test func aKeyInATPMSigns() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let tpm = try SoftwareTPM(setup.folder)
        defer { tpm.stop() }
        let keyText = try String(contentsOfFile: setup.path("tpm-key.pem"), encoding: .utf8)
        #expect(keyText.hasPrefix("-----BEGIN TSS2 PRIVATE KEY-----"))
        let flags = ["rolesanywhere", "credential-process", "--no-session-cache", "--certificate", setup.path("tpm-cert.pem"), "--private-key", setup.path("tpm-key.pem"),
                     "--trust-anchor-arn", Peers.rolesAnywhereTrustAnchor, "--profile-arn", Self.profileArn, "--role-arn", setup.role, "--endpoint", Peers.rolesAnywhere]
        let signed = try await CLI.run(flags, environment: setup.environment.merging(["TPM2OPENSSL_TCTI": tpm.tcti]) { $1 })
        #expect(signed.status == 0 && signed.stdout.contains("\"AccessKeyId\":\"ASIA"), "\(signed.stderr)")
        let closed = try await CLI.run(flags, environment: setup.environment.merging(["TPM2OPENSSL_TCTI": "swtpm:host=127.0.0.1,port=1"]) { $1 })
        #expect(closed.status == 1 && closed.stderr.contains("TPM: OpenSSL's tpm2 provider did not load"), "\(closed.stderr)")
        #expect(try await setup.calls().map { $0["outcome"] } == ["ok"])
    }

    /// Token faults, each named before any call: a wrong PIN, no PIN, a token that is not
    /// there, a module that cannot be loaded, a token key that is not the certificate's.
    @Test func tokenFaultsAreNamed() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let token = try Token(setup)
        let other = try await Setup()
        defer { other.folder.remove() }
        let cases: [(String, [String], String)] = [
            ("pkcs11:token=multiauth;object=host?pin-value=9999", [], "the token refused the PIN: CKR_PIN_INCORRECT"),
            ("pkcs11:token=multiauth;object=host", [], "private keys are visible only after login"),
            ("pkcs11:token=absent;object=host?pin-value=1234", [], "no token matches 'pkcs11:object=host;token=absent'"),
            ("pkcs11:token=multiauth;object=host?pin-value=1234", ["--pkcs11-lib", setup.path("no-such-module.so")], "no-such-module.so cannot be loaded"),
            ("pkcs11:token=multiauth;object=host?pin-value=1234", ["--certificate", other.path("cert.pem")], "the private key is not the certificate's"),
        ]
        for (uri, extra, message) in cases {
            let run = try await CLI.run(
                ["rolesanywhere", "credential-process", "--no-session-cache"] + setup.flags(key: nil) + ["--private-key", uri, "--pkcs11-lib", Token.module] + extra,
                environment: setup.environment.merging(token.environment) { $1 })
            #expect(run.status == 1 && run.stderr.contains(message), "\(uri): \(run.stderr)")
            #expect(!run.stderr.contains("9999") && !run.stderr.contains("1234"))
        }
        #expect(try await setup.calls().isEmpty)
    }

    /// Each bad input gives one line naming the problem, exits non-zero before any call when
    /// the fault is local, prints no key material, and caches nothing: a refused session is
    /// asked for again on the next run.
    @Test func faultsAreNamedAndNothingIsCached() async throws {
        let setup = try await Setup()
        defer { setup.folder.remove() }
        let created = try await CLI.run(["store", "init"], environment: setup.environment)
        try #require(created.status == 0, "\(created.stderr)")
        let other = try await Setup(kind: "rsa")
        defer { other.folder.remove() }
        let keyText = try String(contentsOfFile: setup.path("key-pkcs8.pem"), encoding: .utf8)
        let keyBody = keyText.split(separator: "\n")[1]

        let mismatch = try await CLI.run(
            ["rolesanywhere", "credential-process"] + setup.flags(key: nil) + ["--private-key", other.path("key-pkcs8.pem")], environment: setup.environment)
        #expect(mismatch.status == 1 && mismatch.stderr.contains("the private key is not the certificate's"), "\(mismatch.stderr)")
        let wrong = try await setup.credentialProcess(key: "key-encrypted.pem", environment: ["MULTIAUTH_PRIVATE_KEY_PASSPHRASE": "not-it"])
        #expect(wrong.status == 1 && wrong.stderr.contains("the passphrase does not open the private key"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-it"))
        let noPassphrase = try await setup.credentialProcess(key: "key-encrypted.pem")
        #expect(noPassphrase.status == 8 && noPassphrase.stderr.contains("MULTIAUTH_PRIVATE_KEY_PASSPHRASE"), "\(noPassphrase.stderr)")
        let notAKey = try await setup.credentialProcess(key: "cert.pem")
        #expect(notAKey.status == 1 && notAKey.stderr.contains("the private key holds no RSA or EC private key"), "\(notAKey.stderr)")
        #expect(try await setup.calls().isEmpty)

        for (from, until, problem) in [(-3.0, -1.0, "expired at"), (1.0, 3.0, "is not valid before")] {
            let dated = try await Setup(validFrom: from, validUntil: until)
            defer { dated.folder.remove() }
            let run = try await dated.credentialProcess(["--no-session-cache"])
            #expect(run.status == 1 && run.stderr.contains("the certificate (serial \(dated.serial)) \(problem)"), "\(run.stderr)")
            #expect(try await dated.calls().isEmpty)
        }

        let stranger = try await StrangerCA()
        defer { stranger.folder.remove() }
        let untrusted = try await Setup(caCert: stranger.certificate, caKey: stranger.key)
        defer { untrusted.folder.remove() }
        let storeEnvironment = ["MULTIAUTH_STORE": setup.path("store"), "MULTIAUTH_STORE_KEY_FILE": setup.path("store-key")]
        for attempt in 1...2 {
            let refused = try await untrusted.credentialProcess(environment: storeEnvironment)
            #expect(refused.status == 1 && refused.stderr.contains("rolesanywhere CreateSession refused: AccessDeniedException"), "\(refused.stderr)")
            #expect(try await untrusted.calls().count == attempt)
        }
        for run in [mismatch, wrong, noPassphrase, notAKey] { #expect(!run.stderr.contains(keyBody) && !run.stdout.contains(keyBody)) }
    }
}

extension Peers {
    /// The Roles Anywhere stand-in (HTTPS, the TLS CA), its trust anchor and the anchor's CA.
    static var rolesAnywhere: String { environment["MULTIAUTH_TEST_ROLESANYWHERE_URL"] ?? "" }
    static var rolesAnywhereTrustAnchor: String { environment["MULTIAUTH_TEST_RA_TRUST_ANCHOR_ARN"] ?? "" }
    static var rolesAnywhereCA: String { environment["MULTIAUTH_TEST_RA_CA_CERT"] ?? "" }
    static var rolesAnywhereCAKey: String { environment["MULTIAUTH_TEST_RA_CA_KEY"] ?? "" }
    static var rolesAnywhereAvailable: Bool { !rolesAnywhere.isEmpty && stsAvailable }
}

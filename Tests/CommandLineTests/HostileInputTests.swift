import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// Classes of hostile input found by the adversarial run (issue 19), each with a test that
/// fails on the code before the fix.
@Suite(.timeLimit(.minutes(5))) struct HostileInputTests {
    /// `--max-time inf` and its kin trapped converting a Double to Int (SIGILL).
    @Test(arguments: [
        ["--max-time", "inf"], ["--max-time", "nan"], ["--max-time", "1e300"], ["--max-time=-1"],
        ["--connect-timeout", "nan"], ["--connect-timeout", "0"], ["--retries=-1"], ["--chunk-size", "2000000000"],
    ])
    func absurdNumbersAreUsageErrorsNamingTheRange(arguments: [String]) async throws {
        let run = try await CLI.run(["request", "http://127.0.0.1:9/x"] + arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        let flag = String(arguments[0].prefix { $0 != "=" })
        #expect(run.stderr.contains(flag) && run.stderr.contains(" to "), "\(run.stderr)")
    }

    /// The transport itself speaks http and https only, whatever a request names (a discovery
    /// document once sent libcurl to gopher://).
    @Test(arguments: ["gopher", "file", "ftp", "dict"])
    func otherProtocolsAreRefusedByTheTransport(scheme: String) async throws {
        let request = HTTPRequest(method: .get, scheme: scheme, authority: "127.0.0.1:9", path: "/x")
        await #expect {
            try await CurlHTTPClient().send(request)
        } throws: { error in
            guard case .invalidURL? = (error as? HTTPTransportError)?.kind else { return false }
            return true
        }
    }

    /// A password in a URL's user information was echoed in the error; control bytes went raw
    /// to the terminal.
    @Test func messagesDropUserInformationAndEscapeControlBytes() async throws {
        let run = try await CLI.run(["request", "https://alice:s3cret-pass@example.com/a b"])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(!run.stderr.contains("s3cret-pass") && run.stderr.contains("https://example.com/a b"), "\(run.stderr)")
        #expect(Redaction.quoted("a\u{1b}[2Jb\r\nc") == "a\\u{1b}[2Jb\\u{d}\\u{a}c")
        #expect(Redaction.quoted(String(repeating: "x", count: 10_000)).utf8.count < 210)
    }

    /// `--expires` without `--presign` was silently ignored.
    @Test func expiresWithoutPresignIsAUsageError() async throws {
        let run = try await CLI.run(["sign", "--url", "https://example.com/", "--region", "us-east-1", "--service", "s", "--expires", "60"],
                                   environment: ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"])
        #expect(run.status == 2 && run.stderr.contains("--presign"), "\(run.stderr)")
    }

    /// botocore reads shared files with CRLF (or CR) line endings; so do we.
    @Test func sharedFilesWithCRLFLineEndingsAreRead() throws {
        let text = "[default]\r\naws_access_key_id = AKIDCRLF\r\naws_secret_access_key = secret-crlf\r\n\r\n[profile other]\rregion = eu-west-1\r"
        let credentials = try SharedConfigFiles.parse(contents: text, path: "credentials", isConfig: false)
        #expect(credentials["default"]?["aws_access_key_id"] == "AKIDCRLF")
        #expect(credentials["default"]?["aws_secret_access_key"] == "secret-crlf")
        let config = try SharedConfigFiles.parse(contents: text, path: "config", isConfig: true)
        #expect(config["other"]?["region"] == "eu-west-1")
    }

    /// Duplicate keys in awsconfiguration.json were accepted silently (the first won; Python
    /// tools take the last), and a byte order mark was "unexpected character 'ï'".
    @Test func duplicateKeysAndAByteOrderMarkAreNamed() throws {
        let entry = #"{"ApiUrl": "https://a.example/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "k"}"#
        let duplicated = #"{"AppSync": {"Default": \#(entry)},\#n "AppSync": {"Default": \#(entry)}}"#
        #expect {
            try AWSConfiguration.parse(Array(duplicated.utf8), file: "c.json")
        } throws: { error in
            "\(error)" == "c.json:2:2: invalid JSON: duplicate key AppSync in one object"
        }
        let escaped = #"{"AppSync": {"Default": \#(entry), "Default": \#(entry)}}"#
        #expect(throws: ConfigurationError.self) { try AWSConfiguration.parse(Array(escaped.utf8), file: "c.json") }
        #expect {
            try AWSConfiguration.parse([0xEF, 0xBB, 0xBF] + Array(#"{"AppSync": {}}"#.utf8), file: "c.json")
        } throws: { error in
            "\(error)".contains("byte order mark")
        }
        #expect {
            try AWSConfiguration.parse(Array("{\u{1b}}".utf8), file: "c.json")
        } throws: { error in
            "\(error)".hasSuffix("expected a quoted key") && !"\(error)".contains("\u{1b}")
        }
    }

    /// `store set` stripped one "\n" silently and passphrase files stripped every line ending;
    /// now one rule for both (one LF or CRLF), said in --help, and an empty secret is refused.
    @Test func oneTrailingNewlineRuleForSecrets() async throws {
        let store = try await TempStore()
        for (input, expected) in [("abc\r\n", "abc"), ("abc\n\n", "abc\n"), ("a\tb", "a\tb")] {
            #expect(try await CLI.run(["store", "set", "svc", "acct"] + store.arguments, input: input).status == 0)
            #expect(try await CLI.run(["store", "get", "svc", "acct"] + store.arguments).stdout == expected)
        }
        let empty = try await CLI.run(["store", "set", "svc", "acct"] + store.arguments, input: "\n")
        #expect(empty.status == 2 && empty.stderr.contains("empty"), "\(empty.stderr)")
        #expect(try await CLI.run(["store", "get", "svc", "acct"] + store.arguments).stdout == "a\tb")
        let help = try await CLI.run(["store", "set", "--help"])
        #expect(help.stdout.contains("one trailing line ending (LF or CRLF) is removed"))
        let passphrase = try await CLI.run(["store", "list", "--store", store.folder + "/other"], environment: ["MULTIAUTH_STORE_PASSPHRASE": ""])
        #expect(passphrase.status == 2 && passphrase.stderr.contains("MULTIAUTH_STORE_PASSPHRASE is empty"), "\(passphrase.stderr)")
    }

    /// `store list` printed tabs, line breaks and ESC in names raw, so one item could pose as two.
    @Test func storeListIsUnambiguous() async throws {
        let store = try await TempStore()
        #expect(try await CLI.run(["store", "set", "svc\tfake\nline", "acct\u{1b}[2J", "--label", "l"] + store.arguments, input: "s").status == 0)
        let text = try await CLI.run(["store", "list"] + store.arguments)
        #expect(text.stdout.split(separator: "\n").count == 1, "\(text.stdout)")
        #expect(text.stdout.hasPrefix("svc\\u{9}fake\\u{a}line\tacct\\u{1b}[2J\tl\t"), "\(text.stdout)")
        let json = try await CLI.run(["store", "list", "--format", "json"] + store.arguments)
        let items = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 1 && items[0]["service"] as? String == "svc\tfake\nline" && items[0]["account"] as? String == "acct\u{1b}[2J")
    }

    /// Header values, the method, tokens, keys, session tokens and the scope's region and
    /// service could carry CR/LF onto the wire (or be folded into spaces); every one is
    /// refused, naming where it came from, before anything is sent.
    @Test func controlCharactersNeverReachTheWire() async throws {
        let url = "http://127.0.0.1:9/x"
        let keys = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]
        let refused: [([String], [String: String], String)] = [
            (["sign", "--url", url, "--region", "us-east-1\r\nX-Injected: 1", "--service", "s"], keys, "--region"),
            (["request", url, "--auth", "iam", "--region", "us-east-1", "--service", "s\nX: 1"], keys, "--service"),
            (["request", url, "-H", "X-A: a\r\nInjected: b"], [:], "-H"),
            (["request", url, "-H", "X-A: a\nInjected: b"], [:], "-H"),
            (["request", url, "-X", "GET /other HTTP/1.1\r\nX: 1"], [:], "method"),
            (["request", url, "--auth", "api-key", "--api-key", "k\r\nX: 1"], [:], "API key"),
            (["request", url, "--auth", "user-pools", "--token", "t\nX: 1"], [:], "token"),
            (["request", url, "--auth", "iam", "--region", "us-east-1", "--service", "s"],
             ["AWS_ACCESS_KEY_ID": "AK\r\nX-Injected: 1", "AWS_SECRET_ACCESS_KEY": "secret"], "AWS_ACCESS_KEY_ID from the environment"),
            (["request", url, "--auth", "iam", "--region", "us-east-1", "--service", "s"],
             keys.merging(["AWS_SESSION_TOKEN": "token\nX-Injected: 1"]) { $1 }, "AWS_SESSION_TOKEN from the environment"),
        ]
        for (arguments, environment, named) in refused {
            let run = try await CLI.run(arguments, environment: environment)
            #expect(run.status != 0 && run.stderr.contains(named), "\(arguments): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("\r") && !run.stdout.contains("X-Injected"), "\(arguments): \(run.stdout)")
        }
        // A library caller gets the typed error from the signer itself.
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyId: "AKID", secretAccessKey: "s"), region: "us\r\nX: 1", service: "s")
        #expect(throws: SigningError.controlCharacter(in: "the region")) {
            try signer.signHeaders(HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/"), payload: .empty,
                                   date: SigningDate(secondsSince1970: 1_700_000_000))
        }
    }

    /// A session token from credential_process JSON with CR LF in it.
    @Test func aCredentialProcessTokenWithALineBreakIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-cp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let json = #"{"Version": 1, "AccessKeyId": "AKID", "SecretAccessKey": "s", "SessionToken": "t\r\nX-Injected: 1"}"#
        try Data("[profile cp]\ncredential_process = printf '%s' '\(json)'\n".utf8).write(to: URL(fileURLWithPath: folder + "/config"))
        let run = try await CLI.run(
            ["request", "http://127.0.0.1:9/x", "--auth", "iam", "--region", "us-east-1", "--service", "s", "--profile", "cp"],
            environment: ["AWS_CONFIG_FILE": folder + "/config", "AWS_SHARED_CREDENTIALS_FILE": folder + "/none"])
        #expect(run.status != 0 && run.stderr.contains("SessionToken from credential_process"), "\(run.stderr)")
    }

    /// A token command ending in CRLF ended the headers early; the trailing CRLF is trimmed,
    /// and the server receives one clean header (the fault server echoes the raw head).
    @Test(.enabled(if: Peers.faultAvailable, Peers.reason)) func aTokenCommandEndingInCRLFIsTrimmed() async throws {
        let run = try await CLI.run([
            "request", Peers.fault + "/capture/x", "--auth", "user-pools", "--token-command", "printf 'tok-123\\r\\n'", "-d", "body",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let head = run.stdout.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(head.contains("Authorization: tok-123") && head.contains("Content-Length: 4"), "\(run.stdout)")
    }

    /// A discovery document naming gopher:// and file:// endpoints sent libcurl elsewhere.
    @Test(.enabled(if: Peers.faultAvailable, Peers.reason)) func aHostileDiscoveryDocumentIsRefused() async throws {
        let run = try await CLI.run([
            "login", "oidc", "--issuer", Peers.fault + "/discovery", "--client-id", "c", "--flow", "client-credentials",
            "--store", "/nonexistent/store", "--key-file", "/nonexistent/key",
        ])
        #expect(run.status != 0 && run.stderr.contains("the scheme must be http or https"), "\(run.stderr)")
    }

    /// A token command printing more than 1 MiB was reported as "could not be started".
    @Test func tooMuchTokenOutputIsNamed() async throws {
        let run = try await CLI.run(["request", "http://127.0.0.1:9/x", "--auth", "user-pools", "--token-command", "head -c 2000000 /dev/zero"])
        #expect(run.status == 1 && run.stderr.contains("printed more than 1024 KiB"), "\(run.stderr)")
    }

    /// The one runner behind credential_process and token commands: bounded, and at the limit
    /// the command is stopped with what it started (`sh -c` runs `sleep` as a child).
    @Test func theShellRunnerStopsACommandAndItsChildrenAtTheLimit() async throws {
        let marker = "1000.\(Int.random(in: 100_000...999_999))"
        await #expect(throws: ShellCommandError.timedOut(seconds: 0.5)) {
            try await ShellCommand.output(of: "sleep \(marker); echo done", timeout: 0.5)
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try BoundedWaitTests.processes(matching: marker).isEmpty)
        await #expect(throws: ShellCommandError.failed(status: "exited(3)")) { try await ShellCommand.output(of: "exit 3", timeout: 5) }
        #expect(try await ShellCommand.output(of: "printf ok", timeout: 5) == Array("ok".utf8))
    }

    /// A 50 MB header gave a 52 MB error message with control bytes raw to the terminal; what
    /// a message quotes of its input is now bounded and escaped.
    @Test func errorsQuoteABoundedEscapedPrefix() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-long-\(UUID().uuidString).req").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let line = String(repeating: "X", count: 1 << 20) + "\u{1b}[2J without a colon"
        try Data("GET / HTTP/1.1\nHost: example.com\n\(line)\n\n".utf8).write(to: URL(fileURLWithPath: file))
        let run = try await CLI.run(["sign", "--request", file, "--region", "us-east-1", "--service", "s",
                                    "--access-key-id", "AKID", "--secret-access-key", "secret"])
        #expect(run.status != 0 && run.stderr.utf8.count < 1024, "\(run.stderr.utf8.count) bytes")
        #expect(!run.stderr.contains("\u{1b}"))
        let date = try await CLI.run(CLI.base.filter { $0 != "20150830T123600Z" && $0 != "--date" }
                                    + ["--url", "https://example.com/", "--date", String(repeating: "9", count: 100_000) + "\u{7}"])
        #expect(date.status != 0 && date.stderr.utf8.count < 1024 && !date.stderr.contains("\u{7}"), "\(date.stderr.utf8.count) bytes")
    }
}

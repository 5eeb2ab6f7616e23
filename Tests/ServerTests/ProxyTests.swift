import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Testing

/// `multiauth proxy` between plain clients (curl, an unsigned HTTP client) and the API server
/// stand-in, which checks IAM signatures with botocore, API keys and user-pool JWTs.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct ProxyTests {
    static func curl(_ arguments: [String]) async throws -> (status: Int, body: String) {
        try await offPool { try curlWaiting(arguments) }
    }

    private static func curlWaiting(_ arguments: [String]) throws -> (status: Int, body: String) {
        let finished = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-w", "\n%{http_code}"] + arguments)
        let text = String(decoding: finished.stdout, as: UTF8.self)
        guard let split = text.lastIndex(of: "\n") else { return (0, text) }  // arguments that replaced the -w format
        return (Int(text[text.index(after: split)...]) ?? 0, String(text[..<split]))
    }

    @Test func curlReachesTheIAMProtectedServerThroughTheProxyOnTrickyPaths() async throws {
        let gateway = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        defer { #expect(gateway.stop() == 0) }
        for target in [
            "/iam/plain", "/iam/with%20space/and%20more", "/iam/utf8/%E1%88%B4/%C3%A9t%C3%A9",
            "/iam/q?plus=a%2Bb&slash=%2F&eq=c%3Dd&amp=x%26y", "/iam/repeated?k=2&k=1&k=10&a",
        ] {
            let call = try await Self.curl([gateway.url + target])
            #expect(call.status == 200, "\(target): \(call.body)")
            #expect(call.body.contains("\"target\": \"\(target)\""), "\(target): \(call.body)")
        }
        let post = try await Self.curl(["-X", "POST", "--data-binary", "a body to sign", gateway.url + "/iam/post"])
        #expect(post.status == 200, "\(post.body)")
        #expect(post.body.contains("\"body_length\": 14"))
        #expect(!gateway.log.contains(Peers.secret))
    }

    @Test func apiKeyAndUserPoolTokenModes() async throws {
        let keyed = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--api-key", Peers.apiKey])
        defer { #expect(keyed.stop() == 0) }
        #expect(try await Self.curl([keyed.url + "/apikey/x"]).status == 200)
        #expect(try await Self.curl([keyed.url + "/iam/x"]).status == 403)
        let setup = try #require(Peers.setup)
        let tokened = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "user-pools", "--token", setup.idToken])
        defer { #expect(tokened.stop() == 0) }
        #expect(try await Self.curl([tokened.url + "/jwt/x"]).status == 200)
        #expect(!tokened.log.contains(setup.idToken))
    }

    @Test func twoHundredConcurrentRequestsAllPass() async throws {
        let gateway = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--api-key", Peers.apiKey])
        defer { #expect(gateway.stop() == 0) }
        let client = CurlHTTPClient()
        let url = gateway.url
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask { try await client.send(try HTTPRequest(method: .get, wireURL: url + "/apikey/\(index)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    /// `--upstream-connections` is retired (each client connection holds its own upstream
    /// connection) but still accepted, so scripts that pass it keep running, and still checked.
    @Test func theRetiredUpstreamConnectionsFlagIsStillAcceptedAndChecked() async throws {
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--api-key", Peers.apiKey, "--upstream-connections", "1"])
        defer { #expect(proxy.stop() == 0) }
        #expect(try await Self.curl([proxy.url + "/apikey/retired"]).status == 200)
        let refused = try await CLI.run(["proxy", "--upstream", Peers.api, "--auth", "api-key", "--api-key", "k", "--upstream-connections", "0"])
        #expect(refused.status == 2 && refused.stderr.contains("--upstream-connections"), "\(refused.stderr)")
    }

    /// 200 MiB through the proxy to the botocore-checked server, which hashes what arrives
    /// against the signed x-amz-content-sha256: the proxy spools it (in a private TMPDIR that
    /// must be empty afterwards) and its peak RSS stays far below the body.
    @Test func aTwoHundredMebibyteUploadStreamsThroughInFlatMemory() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-proxy-spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/upload"
        let handle = try #require(FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil)
        for index in 0..<200 { try handle.write(contentsOf: Data(repeating: UInt8(index), count: 1 << 20)) }
        try handle.close()
        let spool = folder + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "TMPDIR": spool])
        defer { #expect(proxy.stop() == 0) }
        let put = try await Self.curl(["-T", path, proxy.url + "/iam/upload"])
        #expect(put.status == 200, "\(put.body)")
        #expect(put.body.contains("\"body_length\": 209715200"), "\(put.body)")
        let chunked = try await Self.curl(["-X", "POST", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + path, proxy.url + "/iam/chunked"])
        #expect(chunked.status == 200, "\(chunked.body)")
        #expect(chunked.body.contains("\"body_length\": 209715200"), "\(chunked.body)")
        let peak = try #require(proxy.peakRSSKiB)
        // Holding either body whole would put the peak over 200 MiB. Below that, the figure
        // moves with the machine's load (57–122 MiB seen: malloc arenas across NIO's threads).
        #expect(peak < 160 * 1024, "peak RSS \(peak) KiB")
        print("proxy peak RSS after two 200 MiB uploads: \(peak) KiB")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
    }

    /// Issue 45, item 5: the proxy forwarded requests from web pages (any Host, any Origin,
    /// `text/plain` POSTs) with the user's credentials, so a page the user visited could call
    /// the API as the user, and with DNS rebinding read the answer. Such requests get 403;
    /// the proxy's own address, its own origin and what the flags allow pass.
    @Test func requestsFromWebPagesAndForeignHostsAreRefused() async throws {
        let proxy = try GatewayProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--allow-host", "api.local",
            "--allow-origin", "http://app.local:3000",
        ], environment: ["MULTIAUTH_API_KEY": Peers.apiKey])
        defer { #expect(proxy.stop() == 0) }
        let url = proxy.url + "/apikey/x"
        let own = proxy.url  // http://127.0.0.1:PORT, the proxy's own origin
        let cases: [([String], Int)] = [
            ([], 200),
            (["-H", "Host: api.local"], 200),
            (["-H", "Host: rebound.example"], 403),
            (["-H", "Origin: http://evil.example", "-H", "Content-Type: text/plain", "--data", "x"], 403),
            (["-H", "Sec-Fetch-Site: cross-site"], 403),
            (["-H", "Origin: \(own)"], 200),
            (["-H", "Origin: http://app.local:3000"], 200),
        ]
        for (arguments, status) in cases {
            #expect(try await Self.curl(["-o", "/dev/null"] + arguments + [url]).status == status, "\(arguments)")
        }
    }

    /// A client that stops sending halfway through its body is logged as an unreadable body,
    /// not a body over the limit (it was answered 413), and never reaches the upstream.
    @Test func aBodyCutShortIsUnreadableNotTooLarge() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--api-key", Peers.apiKey, "-v"])
        defer { #expect(proxy.stop() == 0) }
        let port = String(proxy.url.split(separator: ":").last ?? "")
        _ = try await Peers.python("scripts/oracles/raw_http.py", ["127.0.0.1", port, "short-body", "10"])
        _ = try await proxy.logShows("request body refused")
        #expect(proxy.log.contains("cannot read the received body"), "\(proxy.log)")
        #expect(!proxy.log.contains("larger than"), "\(proxy.log)")
    }

    /// The proxy asks for a body at once: a client waiting on `Expect: 100-continue` gets
    /// `100 Continue`, and the signed request its answer.
    @Test func expectContinueIsAnswered() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "api-key", "--api-key", Peers.apiKey])
        defer { #expect(proxy.stop() == 0) }
        let port = String(proxy.url.split(separator: ":").last ?? "")
        let answer = try await Peers.python("scripts/oracles/raw_http.py", ["127.0.0.1", port, "expect", "10"])
        #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("100, then "), "\(answer)")
    }

    /// botocore (the server's verifier) takes the payload hash from `x-amz-content-sha256`, so
    /// the signature passes only if that header is signed with UNSIGNED-PAYLOAD.
    @Test func anUnsignedPayloadIsSignedAsSuchAndNotHashed() async throws {
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "iam", "--unsigned-payload", "--region", "us-east-1",
             "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        defer { #expect(proxy.stop() == 0) }
        let put = try await Self.curl(["-X", "PUT", "--data-binary", String(repeating: "u", count: 3000), proxy.url + "/iam/unsigned"])
        #expect(put.status == 200, "\(put.body)")
        #expect(put.body.contains("\"body_length\": 3000") && put.body.contains("UNSIGNED-PAYLOAD"), "\(put.body)")
    }

    /// The server decodes the aws-chunked body and checks every chunk signature and the
    /// trailer's checksum and signature, from the S3 reference's formulas.
    @Test func chunkedUploadsGoOutAsSignedAWSChunked() async throws {
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "iam", "--chunked", "--chunk-size", "8192",
             "--trailer", "crc32", "--region", "us-east-1", "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        defer { #expect(proxy.stop() == 0) }
        let body = String(repeating: "0123456789", count: 3001)
        for extra in [[String](), ["-H", "Transfer-Encoding: chunked"]] {
            let put = try await Self.curl(["-X", "PUT", "--data-binary", body] + extra + [proxy.url + "/iam/chunked-upload"])
            #expect(put.status == 200, "\(put.body)")
            #expect(put.body.contains(#"["x-amz-decoded-content-length", "30010"]"#), "\(put.body)")
            #expect(put.body.contains("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"), "\(put.body)")
        }
        #expect(try await Self.curl([proxy.url + "/iam/no-body"]).status == 200)
    }

    @Test func anUnsignedPayloadNeedsIAM() async throws {
        let refused = try await CLI.run(["proxy", "--upstream", Peers.api, "--auth", "api-key", "--unsigned-payload"])
        #expect(refused.status == 2 && refused.stderr.contains("--unsigned-payload needs --auth iam"), "\(refused.stderr)")
    }

    @Test func aBodyOverTheLimitIsRefusedWhetherAnnouncedOrChunked() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "none", "--max-body", "1000"])
        defer { #expect(proxy.stop() == 0) }
        let body = String(repeating: "a", count: 2000)
        #expect(try await Self.curl(["--data-binary", body, proxy.url + "/open/x"]).status == 413)
        #expect(try await Self.curl(["-H", "Transfer-Encoding: chunked", "--data-binary", body, proxy.url + "/open/x"]).status == 413)
        let small = try await Self.curl(["-H", "Transfer-Encoding: chunked", "--data-binary", "small", proxy.url + "/open/x"])
        #expect(small.status == 200 && small.body.contains("\"body_length\": 5"), "\(small.body)")
    }

    /// An https:// upstream with a self-signed certificate: 502 through the system's trust
    /// store, 200 with `--upstream-ca-bundle` naming the certificate, for a body-less request
    /// and for one with a body; a bundle that cannot be read is a usage error.
    @Test func anHTTPSUpstreamIsTrustedThroughTheCABundle() async throws {
        try #require(!Peers.tlsUpstream.isEmpty, "the HTTPS upstream is not running")
        let untrusting = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.tlsUpstream, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(untrusting.stop() == 0) }
        await #expect(try Self.curl([untrusting.url + "/tls/proxied"]).status == 502)
        let trusting = try GatewayProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.tlsUpstream, "--auth", "api-key", "--api-key", "k",
            "--upstream-ca-bundle", Peers.tlsCA, "--verbose",
        ])
        defer { #expect(trusting.stop() == 0) }
        let passed = try await Self.curl([trusting.url + "/tls/proxied"])
        #expect(passed.status == 200 && passed.body.contains("/tls/proxied"), "\(trusting.log)")
        let posted = try await Self.curl(["-X", "POST", "--data", "a body", trusting.url + "/tls/posted"])
        #expect(posted.status == 200 && posted.body.contains("/tls/posted"), "\(trusting.log)")
        let missing = try await CLI.run(["proxy", "--upstream", Peers.tlsUpstream, "--auth", "api-key", "--api-key", "k", "--upstream-ca-bundle", "/nonexistent/ca.pem"])
        #expect(missing.status == 2 && missing.stderr.contains("--upstream-ca-bundle"), "\(missing.stderr)")
        let insecure = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.tlsUpstream, "--auth", "api-key", "--api-key", "k", "--upstream-insecure"])
        defer { #expect(insecure.stop() == 0) }
        let unverified = try await Self.curl([insecure.url + "/tls/insecure"])
        #expect(unverified.status == 200 && unverified.body.contains("/tls/insecure"), "\(insecure.log)")
        #expect(insecure.log.contains("certificate is not verified"), "\(insecure.log)")
        let both = try await CLI.run(["proxy", "--upstream", Peers.tlsUpstream, "--auth", "none", "--upstream-insecure", "--upstream-ca-bundle", Peers.tlsCA])
        #expect(both.status == 2 && both.stderr.contains("--upstream-insecure"), "\(both.stderr)")
    }

    @Test func anUpstreamThatIsDownGivesBadGateway() async throws {
        let gateway = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--auth", "none"])
        defer { #expect(gateway.stop() == 0) }
        let call = try await Self.curl(["-i", gateway.url + "/x"])
        #expect(call.status == 502)
        #expect(call.body.lowercased().contains("x-amzn-errortype: badgatewayexception"))
    }
}

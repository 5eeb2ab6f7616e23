import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Synchronization
import Testing

/// The gateway's and the proxy's metrics listener (parsed with prometheus_client's own
/// parser), `/healthz`, and the access log, against what each test sent.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && !Peers.upstream.isEmpty && Peers.faultAvailable, Peers.reason))
struct ObservabilityTests {
    /// Every sample of `metricsBase/metrics`, parsed by prometheus_client.
    static func samples(_ metricsBase: String) async throws -> [String: Double] {
        let output = try await Peers.python("scripts/oracles/prometheus_parse.py", [metricsBase + "/metrics"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        return object.compactMapValues(Double.init)
    }

    static func get(_ url: String, _ fields: HTTPFields = [:]) async throws -> (Int, String) {
        let response = try await GatewayTests.send(.get, url, fields: fields)
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// Nine requests of known outcomes through the gateway: the verification counters, the
    /// duration histogram's counts and the access log's lines say exactly that, and neither
    /// holds a key, a signature or a query.
    @Test func theGatewayCountsAndLogsWhatItDecided() async throws {
        let folder = try ScratchFolder("multiauth-observe")
        defer { folder.remove() }
        let logPath = folder.path + "/access.log"
        let fixture = try GatewayTests.Fixture(["--metrics-listen", "127.0.0.1:0", "--access-log", logPath])
        defer { _ = fixture.gateway.stop() }
        let metrics = try await fixture.gateway.metricsURL()
        let key = HTTPField.Name("x-api-key")!
        for index in 0..<3 { #expect(try await Self.get(fixture.base + "/ok/\(index)?token=query-secret-\(index)", [key: "gw-key-123"]).0 == 200) }
        for _ in 0..<2 { #expect(try await Self.get(fixture.base + "/no", [key: "not-the-key-456"]).0 == 403) }
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.base + "/signed"]).status == 200)
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.base + "/signed-post", "--method", "POST", "--body", "body"]).status == 200)
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.base + "/forged"], secret: "wrong-secret").status == 403)
        #expect(try await Self.get(fixture.base + "/anonymous").0 == 403)

        let samples = try await Self.samples(metrics)
        let decisions = samples.filter { $0.key.hasPrefix("multiauth_verifications_total{") }
        let expected: [String: Double] = [
            "multiauth_verifications_total{mode=API_KEY,result=allowed}": 3, "multiauth_verifications_total{mode=API_KEY,result=denied}": 2,
            "multiauth_verifications_total{mode=AWS_IAM,result=allowed}": 2, "multiauth_verifications_total{mode=AWS_IAM,result=denied}": 1,
            "multiauth_verifications_total{mode=NONE,result=denied}": 1,
        ]
        #expect(decisions == expected, "\(decisions)")
        let counts = samples.filter { $0.key.hasPrefix("http_server_request_duration_seconds_count{") }
        let requests: Double = counts.values.reduce(0, +)
        #expect(requests == 9, "\(counts)")
        #expect(samples.filter { $0.key.hasPrefix("http_server_active_requests{") }.values.allSatisfy { $0 == 0 })
        #expect(samples.keys.allSatisfy { !$0.contains("/ok") && !$0.contains("gw-key") && !$0.contains(GatewayTests.keyId) })
        #expect(try await Self.get(metrics + "/healthz") == (200, "ok\n"))

        var lines: [[String: Any]] = []
        for _ in 0..<200 where lines.count < 9 {  // the log is written off the event loop: wait (at most 2 s) for the ninth line
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            if lines.count < 9 { try await Task.sleep(for: .milliseconds(10)) }
        }
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(lines.count == 9, "\(text)")
        for secret in ["gw-key-123", "not-the-key-456", "query-secret", "Signature", GatewayTests.secret, "?"] { #expect(!text.contains(secret), "\(secret)") }
        let allowedKeys = lines.filter { ($0["path"] as? String)?.hasSuffix("/ok/0") == true }
        #expect(allowedKeys.first?["principal"] as? String == "ci" && allowedKeys.first?["mode"] as? String == "API_KEY")
        let signed = lines.filter { ($0["path"] as? String)?.hasSuffix("/signed-post") == true }
        #expect(signed.first?["principal"] as? String == GatewayTests.keyId && signed.first?["method"] as? String == "POST")
        let attributes = try FileManager.default.attributesOfItem(atPath: logPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    /// /healthz answers 503 once a stop signal arrives, while a request in flight is let
    /// finish (200).
    @Test func healthTurnsUnavailableWhileTheGatewayDrains() async throws {
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--api-key", "ci=gw-key-123", "--metrics-listen", "127.0.0.1:0",
        ])
        let metrics = try await gateway.metricsURL()
        #expect(try await Self.get(metrics + "/healthz") == (200, "ok\n"))
        // The drain lasts as long as this request: long enough that a loaded machine still
        // sees /healthz answer 503 before the gateway has drained and exited.
        let target = "/delay/5000/\(UUID().uuidString)"
        let slow = Task { try await Self.get(gateway.url + target, [HTTPField.Name("x-api-key")!: "gw-key-123"]) }
        for _ in 0..<500 {  // until the fault server has the request (at most 5 s)
            let seen = try await Self.get(Peers.fault + "/_seen?target=" + target)
            if seen.1.contains("true") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        gateway.signalStop()
        var health = (0, "")
        for _ in 0..<300 where health.0 != 503 {
            health = (try? await Self.get(metrics + "/healthz")) ?? (0, "")
            if health.0 != 503 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(health == (503, "draining\n"))
        #expect(try await slow.value.0 == 200)
        #expect(gateway.stop() == 0)
    }

    /// The proxy counts what it authorized; its /healthz says 503 while IAM credentials
    /// cannot be had, and why, without a secret.
    @Test func theProxyCountsSignaturesAndReportsMissingCredentials() async throws {
        let keyed = try GatewayProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--auth", "api-key", "--api-key", "proxy-key-789",
            "--metrics-listen", "127.0.0.1:0",
        ])
        defer { _ = keyed.stop() }
        let keyedMetrics = try await keyed.metricsURL()
        for _ in 0..<2 { #expect(try await Self.get(keyed.url + "/through").0 == 200) }
        let samples = try await Self.samples(keyedMetrics)
        #expect(samples["multiauth_signatures_total{mode=API_KEY,result=signed}"] == 2, "\(samples)")
        #expect(samples.keys.allSatisfy { !$0.contains("proxy-key-789") })

        let unsigned = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api",
             "--metrics-listen", "127.0.0.1:0"],
            environment: ["AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true"])
        defer { _ = unsigned.stop() }
        let health = try await Self.get(try await unsigned.metricsURL() + "/healthz")
        #expect(health.0 == 503 && health.1.hasPrefix("no usable credentials"), "\(health)")
    }

    /// SIGHUP swaps the gateway's key pairs and API keys while a load runs on a key both
    /// tables hold: no request of the load fails, the old keys are refused and the new ones
    /// pass at once; a reload of a broken file keeps the table and says why.
    @Test func aHangUpSwapsKeysWithoutFailingARequest() async throws {
        let folder = try ScratchFolder("multiauth-reload")
        defer { folder.remove() }
        func write(_ name: String, _ text: String) throws {
            let staging = folder.path + "/." + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: staging))
            chmod(staging, 0o600)
            rename(staging, folder.path + "/" + name)
        }
        try write("iam.json", #"{"AKIDRELOADOLD": "old-secret"}"#)
        try write("keys.json", #"{"old": "key-old", "stable": "key-stable"}"#)
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--iam-credentials", folder.path + "/iam.json",
            "--api-key-file", folder.path + "/keys.json",
        ])
        defer { _ = gateway.stop() }
        let key = HTTPField.Name("x-api-key")!
        let done = StopFlag()
        let load = Task { () -> (sent: Int, failed: Int) in
            var (sent, failed) = (0, 0)
            let client = CurlHTTPClient()
            while !done.value.load(ordering: .relaxed), sent < 20_000 {
                let response = try? await client.send(try HTTPRequest(method: .get, wireURL: gateway.url + "/load", headerFields: [key: "key-stable"]))
                sent += 1
                if response?.status != 200 { failed += 1 }
            }
            return (sent, failed)
        }
        #expect(try await Self.get(gateway.url + "/x", [key: "key-old"]).0 == 200)
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", gateway.url + "/x"], secret: "old-secret", keyId: "AKIDRELOADOLD").status == 200)

        try write("iam.json", #"{"AKIDRELOADNEW": "new-secret"}"#)
        try write("keys.json", #"{"new": "key-new", "stable": "key-stable"}"#)
        gateway.send(signal: SIGHUP)
        #expect(try await gateway.logShows("reloaded, modes AWS_IAM, API_KEY"))
        #expect(try await Self.get(gateway.url + "/x", [key: "key-old"]).0 == 403)
        #expect(try await Self.get(gateway.url + "/x", [key: "key-new"]).0 == 200)
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", gateway.url + "/x"], secret: "old-secret", keyId: "AKIDRELOADOLD").status == 403)
        #expect(try await GatewayTests.signedCall(["--signer", "botocore", "--url", gateway.url + "/x"], secret: "new-secret", keyId: "AKIDRELOADNEW").status == 200)

        try write("iam.json", #"{"AKIDRELOADNEW": "#)
        gateway.send(signal: SIGHUP)
        #expect(try await gateway.logShows("reload failed, still serving the previous table: --iam-credentials"))
        #expect(try await Self.get(gateway.url + "/x", [key: "key-new"]).0 == 200)
        done.value.store(true, ordering: .relaxed)
        let (sent, failed) = await load.value
        #expect(sent > 10 && failed == 0, "\(sent) sent, \(failed) failed")
    }

    /// The gateway over TLS: curl reaches it with the CA (a key check passes, a wrong one is
    /// refused); plain HTTP on the TLS port gets no answer, and the gateway keeps serving.
    @Test(.enabled(if: !Peers.tlsKey.isEmpty, Peers.reason)) func curlReachesTheGatewayOverTLS() async throws {
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--api-key", "ci=tls-key-123", "--tls-cert", Peers.tlsCA,
            "--tls-key", Peers.tlsKey,
        ])
        defer { _ = gateway.stop() }
        #expect(gateway.url.hasPrefix("https://127.0.0.1:"))
        func curl(_ arguments: [String]) async throws -> (Int32, String) {
            let finished = try await offPool {
                try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments, limit: 30)
            }
            return (finished.status, String(decoding: finished.stdout, as: UTF8.self))
        }
        #expect(try await curl(["--cacert", Peers.tlsCA, "-H", "x-api-key: tls-key-123", gateway.url + "/tls"]) == (0, "200"))
        #expect(try await curl(["--cacert", Peers.tlsCA, "-H", "x-api-key: wrong", gateway.url + "/tls"]) == (0, "403"))
        let plain = try await curl(["--max-time", "10", gateway.url.replacingOccurrences(of: "https://", with: "http://") + "/tls"])
        #expect(plain.0 != 0 && plain.1 == "000", "\(plain)")
        #expect(try await curl(["--cacert", Peers.tlsCA, "-H", "x-api-key: tls-key-123", gateway.url + "/again"]) == (0, "200"))
        // Issue 45, item 5: TLS 1.0 and 1.1 were accepted. openssl, told to offer 1.1 only
        // (at security level 0, which allows it), gets no handshake; offering 1.2 it does.
        let hostPort = gateway.url.replacingOccurrences(of: "https://", with: "")
        func handshake(_ version: String) async throws -> Int32 {
            try await offPool {
                try ChildProcess.run(
                    URL(fileURLWithPath: "/usr/bin/openssl"), ["s_client", "-connect", hostPort, version, "-cipher", "DEFAULT@SECLEVEL=0"],
                    limit: 30)
            }.status
        }
        #expect(try await handshake("-tls1_1") != 0)
        #expect(try await handshake("-tls1_2") == 0)
    }

    /// A scraper that opens connections to the metrics port without end gets 503 past the
    /// listener's limit, while the gateway's own port keeps answering; once they close,
    /// /metrics answers again.
    @Test func aScraperHoardingConnectionsDoesNotStarveTheGateway() async throws {
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--api-key", "ci=hoard-key", "--metrics-listen", "127.0.0.1:0",
        ])
        defer { _ = gateway.stop() }
        let metrics = try await gateway.metricsURL()
        let portText: Substring = metrics.split(separator: ":").last ?? ""
        let port = try #require(UInt16(portText))
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        for _ in 0..<40 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            held.append(descriptor)
        }
        // The held connections are counted as each event loop sets them up, which on a busy
        // machine can trail a later connection's set-up by a little: 503 is awaited, bounded.
        var refused = 0
        for _ in 0..<100 where refused != 503 {
            refused = (try? await Self.get(metrics + "/healthz").0) ?? 0
            if refused != 503 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(refused == 503)
        #expect(try await Self.get(gateway.url + "/hoard", [HTTPField.Name("x-api-key")!: "hoard-key"]).0 == 200)
        for descriptor in held { close(descriptor) }
        held = []
        var answered = 0
        for _ in 0..<100 where answered != 200 {
            answered = (try? await Self.get(metrics + "/healthz").0) ?? 0
            if answered != 200 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(answered == 200)
    }
}


/// Tells a loop in another task to stop.
final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}

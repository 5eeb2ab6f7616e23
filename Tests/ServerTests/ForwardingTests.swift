import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCurl
import Testing

/// How `multiauth proxy` and `multiauth gateway` forward (over an upstream connection held per
/// client connection; body-less requests decided on the event loop, others in a task): one
/// client connection mixing both kinds, upstream connections that close, a response larger
/// than any buffer, and a stop signal while a request is under way.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && !Peers.upstream.isEmpty && Peers.faultAvailable, Peers.reason))
struct ForwardingTests {
    /// A GET, a POST with a body (decided in a task) and a GET, sent in one write on one
    /// connection: three answers, in the order asked.
    @Test func pipelinedRequestsOnBothPathsAreAnsweredInOrder() async throws {
        let gateway = try GatewayProcess(["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--api-key", "ci=k"])
        defer { #expect(gateway.stop() == 0) }
        #expect(try await GatewayHostileInputTests.raw(gateway, "pipelined") == "200 /p1,200 /p2,200 /p3")
        #expect(try await GatewayHostileInputTests.raw(gateway, "pipelined") == "200 /p1,200 /p2,200 /p3")
    }

    /// A request asking for `Connection: close` is answered, then the connection is closed
    /// (without it, the client would wait for more until its 10 s limit and report "timeout").
    @Test func connectionCloseIsHonoured() async throws {
        let gateway = try GatewayProcess(["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--api-key", "ci=k"])
        defer { #expect(gateway.stop() == 0) }
        #expect(try await GatewayHostileInputTests.raw(gateway, "close") == "HTTP/1.1 200 OK, then closed")
    }

    /// The fault server answers on a kept-alive connection, then drops it when the next request
    /// arrives: a GET goes again on a new connection and passes; a POST, which is not
    /// idempotent, is not sent twice and gets 502.
    @Test func aDroppedUpstreamConnectionIsRetriedForIdempotentRequestsOnly() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        #expect(try await GatewayHostileInputTests.raw(proxy, "reuse") == "200 /keepalive/a,200 /keepalive/b,502 -", "\(proxy.log)")
    }

    /// 20 MB from an upstream that closes after each response: every byte arrives, and the
    /// next request on the same client connection is served on a new upstream connection.
    @Test func aLargeResponseStreamsThroughWhole() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        let size = 20_000_000
        let call = try await ProxyTests.curl(["-o", "/dev/null", "-o", "/dev/null", "-w", "%{size_download} ", proxy.url + "/stream/\(size)", proxy.url + "/stream/10"])
        #expect(call.body.split(separator: " ").prefix(2) == ["\(size)", "10"], "\(call.body)")
    }

    /// 100 MB from an upstream that writes as fast as it can, to a client reading at 50 MB/s:
    /// the proxy stops reading the upstream while the client is behind, so its memory stays
    /// flat (without that, it would hold most of the 100 MB).
    @Test func aSlowClientSlowsTheUpstreamDownInsteadOfFillingMemory() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        let before = try #require(proxy.peakRSSKiB)
        let size = 100_000_000
        let call = try await ProxyTests.curl(["-o", "/dev/null", "--limit-rate", "50M", "-w", "%{size_download}", proxy.url + "/stream/\(size)"])
        #expect(call.body == "\(size)")
        let growth = try #require(proxy.peakRSSKiB) - before
        #expect(growth < 32_000, "peak RSS grew by \(growth) KiB")
    }

    /// The proxy in IAM mode in front of an API whose clock is 20 minutes off: its first answer
    /// rejects the signing time, the proxy learns the offset from its `Date` field and signs
    /// again, and the client sees only the 200 (a GET, and a POST with a body).
    @Test(.enabled(if: !Peers.skewedAPI.isEmpty, Peers.reason))
    func anIAMProxyCorrectsItsClockFromTheUpstreamsRejection() async throws {
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.skewedAPI, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api", "-v"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        defer { #expect(proxy.stop() == 0) }
        let get = try await ProxyTests.curl([proxy.url + "/iam/skew"])
        #expect(get.status == 200, "\(get.body) \(proxy.log)")
        #expect(try await proxy.logShows("signing time rejected"), "\(proxy.log)")
        let post = try await ProxyTests.curl(["-X", "POST", "--data-binary", "a body", proxy.url + "/iam/skew"])
        #expect(post.status == 200, "\(post.body)")
        // Credentials now cached: the next GETs are signed on the event loop, at the learned time.
        for _ in 0..<3 { #expect(try await ProxyTests.curl([proxy.url + "/iam/skew"]).status == 200) }
        #expect(proxy.log.components(separatedBy: "signing time rejected").count == 2, "\(proxy.log)")
        #expect(!proxy.log.contains(Peers.secret))
    }

    /// An upstream that sends half of its announced body and closes: the client's connection is
    /// cut (curl reports a partial transfer), and the proxy goes on serving.
    @Test func aResponseCutOffUpstreamIsCutOffForTheClient() async throws {
        let proxy = try GatewayProcess(["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--auth", "api-key", "--api-key", "k"])
        defer { #expect(proxy.stop() == 0) }
        let cut = try await offPool { try Self.curlExitCode([proxy.url + "/cut/100000"]) }
        #expect(cut == 18)  // CURLE_PARTIAL_FILE
        #expect(try await ProxyTests.curl([proxy.url + "/delay/0"]).status == 200)
    }

    /// SIGTERM while a request is with the upstream: the request still gets its answer and the
    /// process exits 0.
    @Test func aStopSignalLetsTheRequestUnderWayFinish() async throws {
        let gateway = try GatewayProcess(["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.fault, "--api-key", "ci=k"])
        let target = "/delay/1500/\(UUID().uuidString)"
        let call = Task { try await ProxyTests.curl(["-H", "x-api-key: k", gateway.url + target]) }
        // The request is under way once the fault server holds it: bounded polling of its record.
        let deadline = ContinuousClock.now + .seconds(10)
        var held = false
        while !held, ContinuousClock.now < deadline {
            let seen = try await GatewayTests.send(.get, Peers.fault + "/_seen?target=" + target)
            held = String(decoding: seen.body, as: UTF8.self).contains("true")
            if !held { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(held, "the upstream never received \(target)")
        let exit = try await offPool { gateway.stop() }
        let answer = try await call.value
        #expect(answer.status == 200 && answer.body.contains(target), "\(answer) \(gateway.log)")
        #expect(exit == 0)
    }

    /// SIGTERM while a client holds an idle kept-alive connection: the server closes it at
    /// once (not at the 60 s head deadline) and exits 0.
    @Test func aStopSignalClosesIdleConnections() async throws {
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--api-key", "ci=k", "--request-head-timeout", "60",
        ])
        let port = String(gateway.url.split(separator: ":").last ?? "")
        let seen = try await Peers.python("scripts/oracles/raw_http.py", ["127.0.0.1", port, "idle-then-stop", "10", String(gateway.pid)])
        #expect(seen.contains("200, then closed"), "\(seen) \(gateway.log)")
        #expect(try await offPool { gateway.stop() } == 0)
    }

    private static func curlExitCode(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "--max-time", "10"] + arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

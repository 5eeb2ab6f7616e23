import Foundation
import IntegrationSupport
import Testing

/// aws-sigv4-proxy's routing and roles: `--route` picks the upstream and signing scope by the
/// request's Host, `role-arn` signs as an assumed role; both upstreams check every signature
/// with botocore (the STS stand-in, which knows the sessions it issued, and the API server).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable, Peers.reason))
struct ProxyRoutingTests {
    static func curl(_ arguments: [String]) async throws -> (status: String, body: String) {
        let finished = try await offPool {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-w", "\n%{http_code}"] + arguments, limit: 30)
        }
        let text = String(decoding: finished.stdout, as: UTF8.self)
        let cut = text.lastIndex(of: "\n") ?? text.endIndex
        return (String(text[text.index(after: cut)...]), String(text[..<cut]))
    }

    @Test func routesByHostAndSignsAsTheAssumedRole() async throws {
        let role = "arn:aws:iam::123456789012:role/proxy-\(UUID().uuidString.prefix(8))"
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--auth", "iam",
             "--route", "sts.test=\(Peers.sts),region=us-east-1,service=sts,role-arn=\(role)",
             "--route", "api.test=\(Peers.api)/iam,region=us-east-1,service=execute-api"],
            environment: [
                "AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_CONFIG_FILE": "/nonexistent",
                "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_ENDPOINT_URL_STS": Peers.sts,
            ])
        defer { _ = proxy.stop() }
        // Through the role: the STS stand-in verifies the session's signature and names the role.
        let form = ["-H", "Content-Type: application/x-www-form-urlencoded", "--data", "Action=GetCallerIdentity&Version=2011-06-15"]
        for _ in 0..<2 {
            let identity = try await Self.curl(["-H", "Host: sts.test"] + form + [proxy.url + "/"])
            #expect(identity.status == "200" && identity.body.contains("assumed-role/\(role.split(separator: "/").last!)/"), "\(identity)")
        }
        let calls = try await Peers.stsCalls("role_arn", role)
        #expect(calls.map { $0["action"] } == ["AssumeRole"] && calls.first?["key_id"] == Peers.keyId, "\(calls)")
        // Without a role, to the API server: a client's own signing fields never reach it.
        let api = try await Self.curl([
            "-H", "Host: API.test:8080", "-H", "X-Amz-Security-Token: client-token-bogus", "-H", "Authorization: Bearer client-bogus",
            proxy.url + "/items",
        ])
        #expect(api.status == "200" && !api.body.contains("bogus"), "\(api)")
        let unknown = try await Self.curl(["-H", "Host: other.test", proxy.url + "/items"])
        #expect(unknown.status == "421", "\(unknown)")
    }

    /// A W3C `traceparent` goes upstream as the client sent it and is never signed: the API
    /// server (botocore) verifies the signature, and the signed headers do not name it, on the
    /// a GET and a POST with a body.
    @Test func traceparentPassesUpstreamUnsigned() async throws {
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", Peers.api, "--auth", "iam", "--region", "us-east-1", "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_CONFIG_FILE": "/nonexistent"])
        defer { _ = proxy.stop() }
        let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        for extra in [[String](), ["-X", "POST", "--data", "a body"]] {
            let call = try await Self.curl(["-H", "traceparent: \(parent)"] + extra + [proxy.url + "/iam/traced"])
            #expect(call.status == "200", "\(call)")
            let echo = try #require(JSONSerialization.jsonObject(with: Data(call.body.utf8)) as? [String: Any])
            let headers = (echo["headers"] as? [[String]] ?? []).map { ($0.first?.lowercased() ?? "", $0.last ?? "") }
            #expect(headers.contains { $0 == ("traceparent", parent) })
            let authorization = headers.first { $0.0 == "authorization" }?.1 ?? ""
            #expect(authorization.contains("SignedHeaders=") && !authorization.contains("traceparent"), "\(authorization)")
        }
    }

    /// `--region-set` makes the proxy sign SigV4a (ECDSA P-256); the gateway (whose SigV4a
    /// verifier agrees with aws-c-auth in GatewayTests) lets both paths' requests through.
    @Test func theProxySignsSigV4a() async throws {
        let keys = try ScratchFolder("multiauth-sigv4a")
        defer { keys.remove() }
        try Data(#"{"\#(GatewayTests.keyId)": "\#(GatewayTests.secret)"}"#.utf8).write(to: keys.url.appendingPathComponent("keys.json"))
        chmod(keys.path + "/keys.json", 0o600)
        let gateway = try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--iam-credentials", keys.path + "/keys.json",
        ])
        defer { _ = gateway.stop() }
        let proxy = try GatewayProcess(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", gateway.url, "--auth", "iam", "--region-set", "*", "--region", "us-east-1",
             "--service", "execute-api"],
            environment: ["AWS_ACCESS_KEY_ID": GatewayTests.keyId, "AWS_SECRET_ACCESS_KEY": GatewayTests.secret, "AWS_CONFIG_FILE": "/nonexistent"])
        defer { _ = proxy.stop() }
        for extra in [[String](), ["-X", "POST", "--data", "a body"]] {
            let call = try await Self.curl(extra + [proxy.url + "/v4a"])
            // The upstream's echo shows the signature the gateway verified, and the mode it forwarded.
            #expect(call.status == "200" && call.body.contains("AWS4-ECDSA-P256-SHA256") && call.body.contains("AWS_IAM"), "\(call)")
        }
    }
}

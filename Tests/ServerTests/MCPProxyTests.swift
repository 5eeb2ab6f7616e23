import Foundation
import IntegrationSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `multiauth mcp-proxy` between the `mcp` Python SDK's client (over stdio, as an agent host
/// runs it) and the SDK's server on streamable HTTP behind a server that verifies every
/// signature: `multiauth gateway` in one test, the botocore-verifying API server (an
/// implementation we did not write) in another. And `multiauth gateway` alone in front of the
/// MCP server, for a client that speaks HTTP itself.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && !Peers.mcp.isEmpty && !Peers.api.isEmpty, Peers.reason))
struct MCPProxyTests {
    static let keyId = "AKIDMCPPROXYTEST"
    static let secret = "mcp-proxy-test-secret-not-real-00000"

    /// A gateway verifying `keyId`'s signatures (and the API key `mcp-key`) in front of the MCP server.
    static func gateway(_ extra: [String] = []) throws -> GatewayProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let credentials = folder.appendingPathComponent("keys.json")
        try Data(#"{"\#(keyId)": "\#(secret)"}"#.utf8).write(to: credentials)
        chmod(credentials.path, 0o600)
        let keys = folder.appendingPathComponent("api-keys.json")
        try Data(#"{"agent": "mcp-key-0123456789"}"#.utf8).write(to: keys)
        chmod(keys.path, 0o600)
        return try GatewayProcess([
            "gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.mcp, "--iam-credentials", credentials.path, "--api-key-file", keys.path,
        ] + extra)
    }

    /// The SDK's client through `multiauth mcp-proxy --endpoint endpoint`, with these credentials.
    static func throughProxy(
        _ endpoint: String, mode: String = "legacy", keyId: String = keyId, secret: String = secret, extra: [String] = []
    ) async throws -> [String: Any] {
        let proxy = ["mcp-proxy", "--endpoint", endpoint, "--service", "execute-api", "--region", "us-east-1"] + extra
        let environment = [
            "AWS_ACCESS_KEY_ID=\(keyId)", "AWS_SECRET_ACCESS_KEY=\(secret)", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent",
        ]
        let output = try await Peers.python(
            "scripts/oracles/mcp_client.py",
            ["--command", Paths.multiauth.path, "--mode", mode] + proxy.map { "--arg=\($0)" } + environment.map { "--env=\($0)" })
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    static func seconds(_ report: [String: Any]) -> [Double] {
        (report["progress"] as? [[Double]] ?? []).map { $0[0] }
    }

    @Test(arguments: ["legacy", "auto"])
    func theSDKsClientListsAndCallsToolsThroughTheProxyOnAVerifyingGateway(mode: String) async throws {
        let gateway = try Self.gateway()
        defer { #expect(gateway.stop() == 0) }
        let report = try await Self.throughProxy(gateway.url + "/mcp", mode: mode)
        #expect(report["connect_error"] == nil, "\(report) \(gateway.log)")
        #expect(report["tools"] as? [String] == ["count_slowly", "delete_item", "echo"])
        #expect(report["echo"] as? String == "hello from the mcp SDK")
        #expect(report["counted"] as? String == "counted to 3")
        #expect(Self.seconds(report).count == 3)
        #expect(report["delete"] as? String == "deleted x")
    }

    /// The API server recomputes each signature with botocore before it sends the call on.
    @Test func botocoreVerifiesEverySignatureTheProxyMakes() async throws {
        let report = try await Self.throughProxy(Peers.api + "/mcp-iam/mcp", keyId: Peers.keyId, secret: Peers.secret)
        #expect(report["connect_error"] == nil, "\(report)")
        #expect(report["echo"] as? String == "hello from the mcp SDK" && report["counted"] as? String == "counted to 3", "\(report)")
    }

    /// A server that refuses the signature: the client gets a JSON-RPC error naming the
    /// refusal, at once, not a hang (the client's own limit is 60 s).
    @Test func aRefusedSignatureIsAJSONRPCErrorNotAHang() async throws {
        let gateway = try Self.gateway()
        defer { #expect(gateway.stop() == 0) }
        let report = try await Self.throughProxy(gateway.url + "/mcp", secret: "a-wrong-secret-00000000000000000000")
        let failure = report["connect_error"] as? String ?? ""
        #expect(failure.contains("HTTP 403") && failure.contains("signature"), "\(report)")
    }

    @Test func readOnlyListsAndCallsOnlyReadOnlyTools() async throws {
        let gateway = try Self.gateway()
        defer { #expect(gateway.stop() == 0) }
        let report = try await Self.throughProxy(gateway.url + "/mcp", extra: ["--read-only"])
        #expect(report["tools"] as? [String] == ["count_slowly", "echo"], "\(report)")
        #expect(report["echo"] as? String == "hello from the mcp SDK")
        let refused = (report["delete"] as? [String: String])?["error"] ?? ""
        #expect(refused.contains("readOnlyHint"), "\(report)")
    }

    /// The server reports progress eight times, 0.2 s apart, over one event stream: through the
    /// gateway they arrive apart, as sent, not together at the end; and the stream outlasts
    /// the gateway's 1 s upstream timeout, which bounds each silence of an event stream.
    @Test func aStreamedToolResultArrivesInPiecesThroughTheGateway() async throws {
        let gateway = try Self.gateway(["--upstream-timeout", "1"])
        defer { #expect(gateway.stop() == 0) }
        let output = try await Peers.python(
            "scripts/oracles/mcp_client.py", ["--url", gateway.url + "/mcp", "--header", "x-api-key: mcp-key-0123456789", "--count", "8"])
        let report = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(report["counted"] as? String == "counted to 8", "\(report) \(gateway.log)")
        let arrivals = Self.seconds(report)
        #expect(arrivals.count == 8 && arrivals[7] - arrivals[0] >= 1.2, "\(arrivals)")
        let refused = try await Peers.python("scripts/oracles/mcp_client.py", ["--url", gateway.url + "/mcp", "--header", "x-api-key: wrong"])
        #expect(refused.contains("connect_error"), "\(refused)")
    }

    /// Credentials in the clear: plain http is refused unless the server is on this host.
    @Test func plainHTTPToAnotherHostIsRefused() async throws {
        let run = try await CLI.run(["mcp-proxy", "--endpoint", "http://mcp.example.com/mcp", "--service", "execute-api", "--region", "us-east-1"])
        #expect(run.status != 0 && run.stderr.contains("--endpoint") && run.stderr.contains("use https"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}

import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthHTTP
import Testing

/// The apps in `Examples/` (executable targets of the root package, built by `scripts/test`
/// with everything else), run against peers we did not write: the generated OpenAPI client
/// against the botocore-verifying API server, and the Hummingbird service against botocore's
/// and aws-c-auth's signatures.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct ExamplesTests {
    /// An example's executable, beside `multiauth` in the same build folder.
    static func binary(_ product: String) throws -> URL {
        let url = Paths.multiauth.deletingLastPathComponent().appendingPathComponent(product)
        try #require(Paths.exists(url), "\(url.path) is missing: swift build builds it (scripts/test runs it)")
        return url
    }

    static func run(_ executable: URL, environment: [String: String]) async throws -> (status: Int32, output: String) {
        var base = ProcessInfo.processInfo.environment
        for key in ["AWS_PROFILE", "AWS_SESSION_TOKEN"] { base[key] = nil }
        let env = base.merging(environment) { $1 }
        let finished = try await offPool { try ChildProcess.run(executable, [], environment: env) }
        return (finished.status, String(decoding: finished.stdout, as: UTF8.self))
    }

    @Test func theGeneratedClientCallsTheVerifyingServerSignedAndWithAKey() async throws {
        let client = try Self.binary("OpenAPIClientExample")
        let environment = [
            "ITEMS_API_URL": Peers.api, "ITEMS_API_KEY": Peers.apiKey,
            "AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_REGION": "us-east-1",
        ]
        let passed = try await Self.run(client, environment: environment)
        #expect(passed.status == 0, "\(passed.output)")
        #expect(passed.output == "iam: GET /iam/items/42\napikey: GET /apikey/items/42\n")

        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        wrong["ITEMS_API_KEY"] = "not-the-key"
        let refused = try await Self.run(client, environment: wrong)
        #expect(refused.status == 1)
        #expect(refused.output.hasPrefix("iam: refused 403: The request signature we calculated does not match"), "\(refused.output)")
        #expect(refused.output.contains("apikey: refused 403: Forbidden"), "\(refused.output)")
    }

    @Test func theHummingbirdServiceGreetsVerifiedCallersOnly() async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("hello-keys-\(UUID().uuidString).json")
        try Data(#"{"\#(GatewayTests.keyId)": "\#(GatewayTests.secret)"}"#.utf8).write(to: keys)
        defer { try? FileManager.default.removeItem(at: keys) }
        let service = try GatewayProcess(
            [], environment: ["HELLO_KEYS_FILE": keys.path, "HELLO_API_KEY": "hello-key-123", "HELLO_MONITOR_TOKEN": "monitor-token-9", "HELLO_PORT": "0"],
            executable: try Self.binary("HummingbirdServiceExample"))
        defer { _ = service.stop() }

        for signer in [["--signer", "botocore"], ["--signer", "awscrt", "--algorithm", "v4a"], ["--signer", "awscrt", "--form", "query"]] {
            let (status, body) = try await Self.signedCall(signer + ["--url", service.url + "/hello"])
            #expect(status == 200 && body == "hello \(GatewayTests.keyId)\n", "\(signer): \(status) \(body)")
        }
        let (tampered, _) = try await Self.signedCall(["--signer", "botocore", "--url", service.url + "/hello", "--tamper", "query"])
        #expect(tampered == 403)

        let keyed = try await CurlHTTPClient().send(
            try HTTPRequest(method: .get, wireURL: service.url + "/hello", headerFields: [HTTPField.Name("x-api-key")!: "hello-key-123"]))
        #expect(keyed.status == 200 && String(decoding: keyed.body, as: UTF8.self) == "hello example\n")
        let wrongKey = try await CurlHTTPClient().send(
            try HTTPRequest(method: .get, wireURL: service.url + "/hello", headerFields: [HTTPField.Name("x-api-key")!: "not-the-key"]))
        #expect(wrongKey.status == 403 && wrongKey.head.headerFields[HTTPField.Name("x-amzn-ErrorType")!] == "ForbiddenException")
        // hummingbird-auth's own authenticator and IsAuthenticatedMiddleware, in the same router.
        let monitor = try await CurlHTTPClient().send(
            try HTTPRequest(method: .get, wireURL: service.url + "/hello", headerFields: [.authorization: "Bearer monitor-token-9"]))
        #expect(monitor.status == 200 && String(decoding: monitor.body, as: UTF8.self) == "hello monitor\n")
        let anonymous = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: service.url + "/hello"))
        #expect(anonymous.status == 401, "IsAuthenticatedMiddleware answers a caller no authenticator knew")
    }

    /// A request signed and sent by `scripts/oracles/signed_call.py`: its status and body text.
    static func signedCall(_ arguments: [String]) async throws -> (Int, String) {
        let output = try await Peers.python(
            "scripts/oracles/signed_call.py", ["--key", GatewayTests.keyId, "--secret", GatewayTests.secret] + arguments)
        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        return (try #require(object["status"] as? Int), object["body"] as? String ?? "")
    }
}

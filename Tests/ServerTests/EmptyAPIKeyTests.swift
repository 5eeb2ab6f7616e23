import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthInboundAuthorization
import Testing

/// Issue 45, item 5: an empty API key in `--api-key-file` was accepted, so a request with an
/// empty `x-api-key` passed as that key's name.
@Suite(.timeLimit(.minutes(1))) struct EmptyAPIKeyTests {
    @Test func anEmptyKeyIsNeverAcceptedWhateverTheTableHolds() async throws {
        let authorizer = InboundAuthorizer(apiKeys: ["": "blank", "real-key-123": "ci"])
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/")
        request.headerFields[HTTPField.Name("x-api-key")!] = ""
        guard case .failure = await authorizer.authorize(request, body: nil) else {
            Issue.record("an empty x-api-key passed")
            return
        }
        request.headerFields[HTTPField.Name("x-api-key")!] = "real-key-123"
        guard case .success(let principal) = await authorizer.authorize(request, body: nil) else {
            Issue.record("the real key was refused")
            return
        }
        #expect(principal.name == "ci")
    }

    @Test func theGatewayRefusesAKeyFileWithAnEmptyKey() async throws {
        let folder = try ScratchFolder("multiauth-empty-key")
        defer { folder.remove() }
        let path = folder.path + "/keys.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"ci": "real-key-123", "blank": ""}"#.utf8), attributes: [.posixPermissions: 0o600]))
        let run = try await CLI.run(["gateway", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--api-key-file", path], limit: 30)
        #expect(run.status != 0 && run.stderr.contains("'blank' is empty"), "\(run.stderr)")
    }
}

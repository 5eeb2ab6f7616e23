import AsyncHTTPClient
import Foundation
import MultiAuth
import MultiAuthOpenAPI
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// Calls the Items API twice through its generated client: once signed with SigV4 (the
/// credentials come from the AWS default chain), once with an API key.
///
/// Environment: `ITEMS_API_URL` (the base URL), `ITEMS_API_KEY`, `AWS_REGION` (default
/// us-east-1) and whatever the credential chain reads (`AWS_ACCESS_KEY_ID`, a profile, …).
/// Prints one line a call; exits 1 when a call is refused.
@main
struct OpenAPIClientExample {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["ITEMS_API_URL"].flatMap(URL.init(string:)), let apiKey = environment["ITEMS_API_KEY"] else {
            print("set ITEMS_API_URL and ITEMS_API_KEY")
            exit(2)
        }
        let region = environment["AWS_REGION"] ?? "us-east-1"
        let transport = AsyncHTTPClientTransport()

        let credentials = DefaultCredentialsChain.make(http: CurlHTTPClient())
        let signing = AuthorizationMiddleware(IAMAuthorizer(credentials: credentials, region: region, service: "execute-api"))
        let signed = Client(serverURL: url, transport: transport, middlewares: [signing])
        let keyed = Client(serverURL: url, transport: transport, middlewares: [AuthorizationMiddleware(APIKeyAuthorizer(key: .fixed(apiKey)))])

        var passed = true
        for (client, mode) in [(signed, Operations.getItem.Input.Path.modePayload.iam), (keyed, .apikey)] {
            passed = report(mode.rawValue, try await client.getItem(path: .init(mode: mode, itemId: "42"))) && passed
        }
        exit(passed ? 0 : 1)
    }

    /// Prints what the server received, or why it refused; true when it received the call.
    static func report(_ mode: String, _ output: Operations.getItem.Output) -> Bool {
        switch output {
        case .ok(let ok):
            guard let received = try? ok.body.json else { return refused(mode, 200, "not JSON") }
            print("\(mode): \(received.method) \(received.target)")
            return true
        case .forbidden(let refusal): return refused(mode, 403, (try? refusal.body.json.message) ?? nil)
        case .undocumented(let status, _): return refused(mode, status, nil)
        }
    }

    static func refused(_ mode: String, _ status: Int, _ message: String?) -> Bool {
        print("\(mode): refused \(status): \(message ?? "")")
        return false
    }
}

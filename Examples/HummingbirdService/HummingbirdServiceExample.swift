import Foundation
import Hummingbird
import MultiAuth
import MultiAuthHummingbird

/// Serves `GET /hello` to verified callers only, greeting each by its principal: the access
/// key id of a SigV4/SigV4a signature, or the name of an API key.
///
/// Environment: `HELLO_KEYS_FILE`, a JSON object `{"ACCESS_KEY_ID": "secret", …}` (where a
/// real service would look its secrets up), `HELLO_API_KEY` (accepted under the name
/// "example"), `HELLO_PORT` (0 picks a free port). Writes `listening on http://HOST:PORT`
/// on standard error once it accepts connections.
@main
struct HummingbirdServiceExample {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let keysFile = environment["HELLO_KEYS_FILE"], let apiKey = environment["HELLO_API_KEY"] else {
            print("set HELLO_KEYS_FILE and HELLO_API_KEY")
            exit(2)
        }
        let secrets = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: keysFile)))
        let verifier = SigV4Verifier(region: "us-east-1", service: "execute-api") { keyId in
            secrets[keyId].map { VerifierCredential(secretAccessKey: $0) }
        }
        let router = Router(context: MultiAuthContext.self)
        router.add(middleware: InboundAuthorizationMiddleware(InboundAuthorizer(verifier: verifier, apiKeys: [apiKey: "example"])))
        router.get("/hello") { _, context in "hello \(context.principal?.name ?? "")\n" }

        let port = Int(environment["HELLO_PORT"] ?? "8080") ?? 8080
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                let line = "listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)\n"
                FileHandle.standardError.write(Data(line.utf8))
            })
        try await app.runService()
    }
}

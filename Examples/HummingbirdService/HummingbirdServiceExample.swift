import Foundation
import Hummingbird
import HummingbirdAuth
import MultiAuth
import MultiAuthHummingbird

/// Serves `GET /hello` to authenticated callers only, greeting each by name: the access key id
/// of a SigV4/SigV4a signature or the name of an API key (MultiAuth's authenticator), or
/// "monitor" for a bearer token the service issued itself (a hummingbird-auth
/// `ClosureAuthenticator`). hummingbird-auth's `IsAuthenticatedMiddleware` answers 401 to
/// callers neither knows; a bad signature or key gets API Gateway's 403.
///
/// Environment: `HELLO_KEYS_FILE`, a JSON object `{"ACCESS_KEY_ID": "secret", …}` (where a
/// real service would look its secrets up), `HELLO_API_KEY` (accepted under the name
/// "example"), `HELLO_MONITOR_TOKEN` (a bearer token for "monitor"), `HELLO_PORT` (0 picks a
/// free port). Writes `listening on http://HOST:PORT` on standard error once it accepts connections.
@main
struct HummingbirdServiceExample {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let keysFile = environment["HELLO_KEYS_FILE"], let apiKey = environment["HELLO_API_KEY"],
            let monitorToken = environment["HELLO_MONITOR_TOKEN"]
        else {
            print("set HELLO_KEYS_FILE, HELLO_API_KEY and HELLO_MONITOR_TOKEN")
            exit(2)
        }
        let secrets = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: keysFile)))
        let verifier = SigV4Verifier(region: "us-east-1", service: "execute-api") { keyId in
            secrets[keyId].map { VerifierCredential(secretAccessKey: $0) }
        }
        let monitorTokens: Set<String> = [monitorToken]
        // The identity is the caller's name, whichever authenticator knew it.
        let router = Router(context: BasicAuthRequestContext<String>.self)
        router.addMiddleware {
            MultiAuthAuthenticator(InboundAuthorizer(verifier: verifier, apiKeys: [apiKey: "example"])) { principal in principal.name }
            ClosureAuthenticator { request, _ in request.headers.bearer.flatMap { monitorTokens.contains($0.token) ? "monitor" : nil } }
            IsAuthenticatedMiddleware()
        }
        router.get("/hello") { _, context in "hello \(try context.requireIdentity())\n" }

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

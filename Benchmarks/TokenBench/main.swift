// Token benchmarks. Prints one JSON object:
//   token_calls_per_second: in-process `currentTokens()` on a RefreshingTokenProvider holding
//   a valid token, called from 100 concurrent tasks;
// and, with `--prepare FOLDER`, writes a key-file store there holding a login named `bench`
// (a JWT that expires in a day) for timing `multiauth token` as a process.
import Foundation
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthLogins
import MultiAuthStore
import MultiAuthTokens

struct NeverRefresh: TokenRefresher {
    func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens { throw .local("the benchmark token never needs a refresh") }
}

func benchJWT(expiresAt: Int64) -> String {
    let header = Base64.encodeURL(Array(#"{"alg":"RS256","kid":"bench"}"#.utf8))
    let claims = Base64.encodeURL(Array(#"{"sub":"bench-user","aud":"bench","exp":\#(expiresAt)}"#.utf8))
    return header + "." + claims + "." + Base64.encodeURL([UInt8](repeating: 7, count: 256))
}

let expiry = Int64(TimeSource.system.now()) + 86_400
let tokens = AuthTokens(idToken: benchJWT(expiresAt: expiry), accessToken: benchJWT(expiresAt: expiry), refreshToken: "r", expiresAt: expiry)
let arguments = CommandLine.arguments
if arguments.count > 2, arguments[1] == "--prepare" {
    let folder = arguments[2]
    let store = CredentialStore(path: folder + "/store", keySource: .keyFile(path: folder + "/key"))
    try await store.initialize()
    let record = LoginRecord(provider: .oidc(OIDCConfiguration(issuer: "https://issuer.invalid", clientId: "bench")), flow: "bench", tokens: tokens)
    try await LoginStore(store: store).save(record, name: "bench")
    exit(0)
}

let provider = RefreshingTokenProvider(tokens: tokens, refresher: NeverRefresh())
let tasks = 100
let callsPerTask = 40_000
let clock = ContinuousClock()
var best = 0.0
for _ in 0..<3 {
    let elapsed = await clock.measure {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<callsPerTask { _ = try? await provider.currentTokens() }
                }
            }
        }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    best = max(best, Double(tasks * callsPerTask) / seconds)
}
print(#"{"token_calls_per_second": \#(Int(best))}"#)

// The ceiling for the proxy and gateway load figures in scripts/bench: a bare Hummingbird
// server that sends every GET on to the upstream through one AsyncHTTPClient (32 pooled
// connections, as the proxy and gateway use by default) and answers with what came back. No
// authorization, no field rewriting, no streaming relay: what `multiauth proxy` and
// `multiauth gateway` cost beyond their stack is their rate against this one's.
// Usage: PassthroughBench PORT UPSTREAM-URL
import AsyncHTTPClient
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments.dropFirst()
let port = Int(arguments.first ?? "") ?? 8082
let upstream = arguments.dropFirst().first ?? "http://127.0.0.1:8081"
var configuration = HTTPClient.Configuration()
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
let router = Router()
router.get("**") { request, _ -> Response in
    let response = try await client.execute(HTTPClientRequest(url: upstream + request.uri.description), timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return Response(status: .init(code: Int(response.status.code)), body: .init(byteBuffer: body))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "passthrough-bench"))
try await app.runService()
try await client.shutdown().get()

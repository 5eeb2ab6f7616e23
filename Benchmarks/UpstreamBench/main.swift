// A trivial upstream for the proxy and gateway load figures in scripts/bench: answers
// every GET of /bench/item with 1 KiB, and every POST there (its body read and dropped) the
// same, on Hummingbird, so the upstream is not the limit.
// Usage: UpstreamBench PORT
import Hummingbird
import NIOCore

let port = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 8081
let kibibyte = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1024)
let router = Router()
router.get("/bench/item") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: kibibyte)) }
router.post("/bench/item") { request, _ in
    for try await _ in request.body {}
    return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: kibibyte))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "upstream-bench"))
try await app.runService()

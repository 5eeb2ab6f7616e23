// Real-time benchmarks against the AppSync peer, driven by scripts/bench:
//   fanout URL API_KEY N ROUNDS   N subscriptions on one API-key client (one socket); each round one IAM
//                                 mutation fanned out to all: delivery latency from the mutation's send
//   reconnect URL ROUNDS          one IAM subscription; each round the peer drops the socket: time until
//                                 the subscription is started again and until data flows again
// Prints one JSON object. IAM uses AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
import Foundation
import HTTPTypes
import MultiAuthAppSync
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthRealtime
import MultiAuthSigV4
import MultiAuthWebSocket
import Synchronization

let arguments = CommandLine.arguments
let subscription = "subscription S($author: String) { onCreatePost(author: $author) { id author title } }"
let addPost = "mutation Add($id: ID!, $author: String!) { addPost(id: $id, author: $author, title: \"bench\") { id } }"

func factory(url: String, apiKey: String, folder: String) throws -> ClientFactory {
    let text = """
        {"AppSync": {"Bench_API_KEY": {"ApiUrl": "\(url)", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "\(apiKey)"},
                     "Bench_AWS_IAM": {"ApiUrl": "\(url)", "Region": "us-east-1", "AuthMode": "AWS_IAM"}}}
        """
    let environment = ProcessInfo.processInfo.environment
    let credentials = AWSCredentials(accessKeyId: environment["AWS_ACCESS_KEY_ID"] ?? "AKIDBENCH", secretAccessKey: environment["AWS_SECRET_ACCESS_KEY"] ?? "bench")
    return ClientFactory(
        configuration: try AWSConfiguration.parse(Array(text.utf8), file: "bench").validated(), cacheDirectory: folder,
        http: CurlHTTPClient(), credentials: StaticCredentialsProvider(credentials), webSocket: NIOWebSocketConnector())
}

func peer(_ root: String, _ path: String, post: Bool = false) async throws -> [String: Any] {
    let response = try await CurlHTTPClient().send(try HTTPRequest(method: post ? .post : .get, wireURL: root + path), body: .bytes(Array("{}".utf8)))
    return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
}

func waitFor(_ condition: () async throws -> Bool) async throws {
    for _ in 0..<6000 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    throw CancellationError()
}

/// Arrival times, shared by the consumers.
final class Arrivals: Sendable {
    let times = Mutex<[ContinuousClock.Instant]>([])
    func withLock<T>(_ body: (inout [ContinuousClock.Instant]) -> T) -> T { times.withLock { body(&$0) } }
}

/// Notes the arrival time of every message of every stream.
func consume(_ streams: [AsyncThrowingStream<GraphQLResult, any Error>], into arrivals: Arrivals) async {
    await withTaskGroup(of: Void.self) { group in
        for stream in streams {
            group.addTask {
                do { for try await _ in stream { arrivals.withLock { $0.append(ContinuousClock.now) } } } catch {}
            }
        }
    }
}

func milliseconds(_ duration: Duration) -> Double { Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15 }

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

func mutate(_ client: AppSyncClient, id: String, author: String) async throws {
    _ = try await client.mutate(addPost, variables: .object(["id": .string(id), "author": .string(author)]), queueWhenOffline: false)
}

let folder = NSTemporaryDirectory() + "realtime-bench-\(UUID().uuidString)"
defer { try? FileManager.default.removeItem(atPath: folder) }

switch arguments.count > 1 ? arguments[1] : "" {
case "fanout":
    let (url, apiKey, count, rounds) = (arguments[2], arguments[3], Int(arguments[4]) ?? 1000, Int(arguments[5]) ?? 5)
    let root = String(url.dropLast("/graphql".count))
    let made = try factory(url: url, apiKey: apiKey, folder: folder)
    let (subscriber, publisher) = (try made.client(named: "Bench_API_KEY"), try made.client(named: "Bench_AWS_IAM"))
    let author = "fanout-" + UUID().uuidString.prefix(8)
    let arrivals = Arrivals()
    var streams: [AsyncThrowingStream<GraphQLResult, any Error>] = []
    for _ in 0..<count { streams.append(try await subscriber.subscribe(subscription, variables: .object(["author": .string(author)]))) }
    let consumers = Task.detached { await consume(streams, into: arrivals) }
    try await waitFor { (try await peer(root, "/_peer/subscribers?author=\(author)")["count"] as? Int) == count }
    var latencies: [Double] = []
    var peerShares: [Double] = []
    var lastDelivery: [Double] = []
    var mutationReturned: [Double] = []
    var firstDelivery: [Double] = []
    for round in 0..<rounds {
        arrivals.withLock { $0.removeAll() }
        let sent = ContinuousClock.now
        try await mutate(publisher, id: "\(author)-\(round)", author: author)
        mutationReturned.append(milliseconds(ContinuousClock.now - sent))
        try await waitFor { arrivals.withLock { $0.count } == count }
        let times = arrivals.withLock { $0 }.map { milliseconds($0 - sent) }.sorted()
        firstDelivery.append(times.first ?? 0)
        latencies += times
        lastDelivery.append(times.last ?? 0)
        peerShares.append(try await peer(root, "/_peer/stats")["last_fanout_ms"] as? Double ?? 0)
    }
    consumers.cancel()
    latencies.sort()
    print(#"{"subscriptions": \#(count), "rounds": \#(rounds), "p50_ms": \#(percentile(latencies, 0.5)), "p99_ms": \#(percentile(latencies, 0.99)), "max_ms": \#(latencies.last ?? 0), "peer_fanout_ms_median": \#(peerShares.sorted()[peerShares.count / 2]), "last_delivery_ms_median": \#(lastDelivery.sorted()[lastDelivery.count / 2]), "first_delivery_ms_median": \#(firstDelivery.sorted()[firstDelivery.count / 2]), "mutation_answered_ms_median": \#(mutationReturned.sorted()[mutationReturned.count / 2])}"#)
case "reconnect":
    let (url, rounds) = (arguments[2], Int(arguments[3]) ?? 5)
    let root = String(url.dropLast("/graphql".count))
    let tag = "bench" + UUID().uuidString.prefix(6).lowercased()
    let tagged = "\(root)/t/\(tag)/graphql"
    let client = try factory(url: tagged, apiKey: "unused", folder: folder).client(named: "Bench_AWS_IAM")
    let author = "reconnect-" + UUID().uuidString.prefix(8)
    let received = Mutex(0)
    let stream = try await client.subscribe(subscription, variables: .object(["author": .string(author)]))
    let consumer = Task { do { for try await _ in stream { received.withLock { $0 += 1 } } } catch {} }
    try await waitFor { (try await peer(root, "/_peer/tag/\(tag)")["starts"] as? Int) == 1 }
    var restarted: [Double] = []
    var flowing: [Double] = []
    for round in 1...rounds {
        let before = received.withLock { $0 }
        let dropped = ContinuousClock.now
        _ = try await peer(root, "/_peer/drop/\(tag)", post: true)
        try await waitFor { (try await peer(root, "/_peer/tag/\(tag)")["starts"] as? Int) == round + 1 }
        restarted.append(milliseconds(ContinuousClock.now - dropped))
        try await mutate(client, id: "\(author)-\(round)", author: author)
        try await waitFor { received.withLock { $0 } > before }
        flowing.append(milliseconds(ContinuousClock.now - dropped))
    }
    consumer.cancel()
    restarted.sort()
    flowing.sort()
    print(#"{"rounds": \#(rounds), "restarted_ms_median": \#(restarted[rounds / 2]), "data_again_ms_median": \#(flowing[rounds / 2]), "data_again_ms_max": \#(flowing.last ?? 0)}"#)
default:
    print("usage: RealtimeBench fanout URL API_KEY N ROUNDS | reconnect URL ROUNDS")
    exit(2)
}

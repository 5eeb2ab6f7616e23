// AppSync client benchmarks, driven by scripts/bench:
//   cache-hit URL API_KEY DIR      median and p99 µs of a cached query (1 KiB response) through the client
//   enqueue DIR FROM TO            queue mutations FROM...TO offline (dead URL); prints "acked N" after each commit
//   replay DIR URL                 replay the queue to URL with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; prints JSON
//   count DIR                      prints how many mutations are queued
import Foundation
import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import MultiAuthTokens

func configuration(url: String, apiKey: String) throws -> AWSConfiguration {
    let text = """
        {"AppSync": {"Bench_API_KEY": {"ApiUrl": "\(url)", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "\(apiKey)"},
                     "Bench_AWS_IAM": {"ApiUrl": "\(url)", "Region": "us-east-1", "AuthMode": "AWS_IAM"}}}
        """
    return try AWSConfiguration.parse(Array(text.utf8), file: "bench").validated()
}

func iamClient(url: String, folder: String) throws -> AppSyncClient {
    let environment = ProcessInfo.processInfo.environment
    let credentials = AWSCredentials(accessKeyId: environment["AWS_ACCESS_KEY_ID"] ?? "AKIDBENCH", secretAccessKey: environment["AWS_SECRET_ACCESS_KEY"] ?? "bench")
    return try ClientFactory(configuration: configuration(url: url, apiKey: "unused"), cacheDirectory: folder, http: CurlHTTPClient(), credentials: StaticCredentialsProvider(credentials))
        .client(named: "Bench_AWS_IAM")
}

let addPost = "mutation Add($id: ID!, $ups: Int) { addPost(id: $id, author: \"bench\", ups: $ups) { id } }"
let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "cache-hit":
    let client = try ClientFactory(configuration: configuration(url: arguments[2], apiKey: arguments[3]), cacheDirectory: arguments[4], http: CurlHTTPClient())
        .client(named: "Bench_API_KEY")
    let content = String(repeating: "multi-auth cache benchmark ", count: 36)  // about 1 KiB in the response
    _ = try await iamClient(url: arguments[2], folder: arguments[4]).mutate(
        "mutation Add($content: String) { addPost(id: \"bench-1k\", author: \"bench\", title: \"one KiB\", content: $content) { id } }",
        variables: .object(["content": .string(content)]), queueWhenOffline: false)
    let query = "query Get($id: ID!) { getPost(id: $id) { id author title content version } }"
    let variables: JSONValue = .object(["id": .string("bench-1k")])
    let fetched = try await client.query(query, variables: variables, cachePolicy: .fetchIgnoringCacheData)
    // Measured off the main actor, so each call does not hop between executors.
    let (samples, cold) = try await Task.detached { () async throws -> ([Double], [Double]) in
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<5000 {
            let elapsed = try await clock.measure { _ = try await client.query(query, variables: variables, cachePolicy: .returnCacheDataDontFetch) }
            samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        // A hit in a client that has not seen the answer yet: read from the database and decoded.
        var cold: [Double] = []
        let factory = try ClientFactory(configuration: configuration(url: arguments[2], apiKey: arguments[3]), cacheDirectory: arguments[4], http: CurlHTTPClient())
        for _ in 0..<300 {
            let fresh = try factory.client(named: "Bench_API_KEY")
            let elapsed = try await clock.measure { _ = try await fresh.query(query, variables: variables, cachePolicy: .returnCacheDataDontFetch) }
            cold.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        return (samples.sorted(), cold.sorted())
    }.value
    print(#"{"cache_hit_median_us": \#(samples[samples.count / 2]), "cache_hit_p99_us": \#(samples[samples.count * 99 / 100]), "database_hit_median_us": \#(cold[cold.count / 2]), "response_bytes": \#(fetched.json.count), "database": "\#(client.databases.queriesPath)"}"#)
case "enqueue":
    let client = try iamClient(url: "http://127.0.0.1:9/graphql", folder: arguments[2])
    for index in Int(arguments[3])!...Int(arguments[4])! {
        guard case .queued = try await client.mutate(addPost, variables: .object(["id": .string("q-\(index)"), "ups": .number(Double(index))])) else {
            fatalError("mutation \(index) was not queued")
        }
        FileHandle.standardOutput.write(Data("acked \(index)\n".utf8))
    }
case "replay":
    let client = try iamClient(url: arguments[3], folder: arguments[2])
    let start = Date()
    let sent = try await client.replayOfflineMutations()
    print(#"{"replayed": \#(sent), "seconds": \#(Date().timeIntervalSince(start)), "left": \#(try await client.pendingMutationCount())}"#)
case "count":
    print(try await iamClient(url: "http://127.0.0.1:9/graphql", folder: arguments[2]).pendingMutationCount())
default:
    FileHandle.standardError.write(Data("usage: AppSyncBench cache-hit|enqueue|replay|count ...\n".utf8))
    exit(2)
}

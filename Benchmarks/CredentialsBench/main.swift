// Credential-chain benchmarks against the local IMDS peer given as the first argument.
// Prints one JSON object:
//   cached_single_us: one task calling credentials() on the default chain (IMDS the only
//     source) after the first resolution, microseconds per call;
//   cached_concurrent_us: the same from 100 concurrent tasks, wall time per call;
//   imds_first_ms: median and worst of 50 first resolutions, each by a new provider (token
//     PUT, role name GET, credentials GET over loopback).
import Foundation
import MultiAuthCredentials
import MultiAuthCurl

let endpoint = CommandLine.arguments[1]
let environment = [
    "AWS_EC2_METADATA_SERVICE_ENDPOINT": endpoint, "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
]
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

var firsts: [Double] = []
for _ in 0..<50 {
    let provider = try InstanceMetadataCredentialsProvider(environment: environment, http: CurlHTTPClient())
    let elapsed = try await clock.measure { _ = try await provider.credentials() }
    firsts.append(seconds(elapsed) * 1000)
}
firsts.sort()

let chain = DefaultCredentialsChain.make(environment: environment, http: CurlHTTPClient())
_ = try await chain.credentials()
let calls = 1_000_000
var single = Double.infinity
var concurrent = Double.infinity
for _ in 0..<3 {
    // Off the main actor, as a server's request handlers call it (the main actor would add two
    // executor hops per call).
    let elapsed = await Task.detached {
        await clock.measure { for _ in 0..<calls { _ = try? await chain.credentials() } }
    }.value
    single = min(single, seconds(elapsed) * 1e6 / Double(calls))
    let tasks = 100, perTask = 10_000
    let together = await clock.measure {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask { for _ in 0..<perTask { _ = try? await chain.credentials() } }
            }
        }
    }
    concurrent = min(concurrent, seconds(together) * 1e6 / Double(tasks * perTask))
}
print(#"{"cached_single_us": \#(single), "cached_concurrent_us": \#(concurrent), "imds_first_ms": [\#(firsts[25]), \#(firsts[49])]}"#)

// Measures the credential store's library calls and prints one JSON object:
// get and set with a key file (median and p99 milliseconds; set includes both fsyncs),
// and the one-time passphrase unlock (scrypt N=2^15, r=8, p=1). The same get and set on the
// shared backends when their peers are given: PostgreSQL (MULTIAUTH_BENCH_POSTGRES_URL, with
// PGPASSWORD) and Secrets Manager and SSM (MULTIAUTH_BENCH_MOTO_URL, through the signer).
import Foundation
import Logging
import MultiAuthAWSStoreBackends
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthPostgresStore
import MultiAuthStore

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-storebench-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
defer { try? FileManager.default.removeItem(atPath: folder) }

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func summary(_ samples: [Double]) -> [String: Double] {
    let sorted = samples.sorted()
    return ["median_ms": sorted[sorted.count / 2], "p99_ms": sorted[min(sorted.count - 1, sorted.count * 99 / 100)]]
}

let clock = ContinuousClock()

/// 20 items of 1.2 KB, then `rounds` sets and gets, alternating.
func measure(_ store: CredentialStore, rounds: Int, itemSize: Int = 1200) async throws -> (gets: [String: Double], sets: [String: Double]) {
    try await store.initialize()
    for index in 0..<20 {
        try await store.set(Array("token-\(index)-".utf8) + [UInt8](repeating: 0x61, count: itemSize), service: "svc", account: "user\(index)")
    }
    var sets: [Double] = []
    var gets: [Double] = []
    for index in 0..<rounds {
        sets.append(milliseconds(try await clock.measure {
            try await store.set(Array("value-\(index)".utf8), service: "svc", account: "user\(index % 20)")
        }))
        gets.append(milliseconds(try await clock.measure {
            _ = try await store.get(service: "svc", account: "user\(index % 20)")
        }))
    }
    return (summary(gets), summary(sets))
}

let key = StoreKeySource.keyFile(path: folder + "/key")
let file = try await measure(CredentialStore(path: folder + "/bench.store", keySource: key), rounds: 200)
let environment = ProcessInfo.processInfo.environment
let name = "bench\(UUID().uuidString.prefix(8).lowercased())"
var shared: [String: Any] = [:]
if let url = environment["MULTIAUTH_BENCH_POSTGRES_URL"] {
    // The store's pool runs as a service for as long as the measuring does.
    let storeURL = try PostgresStoreURL(url + "&store=" + name, environment: environment)
    let pools = PostgresStorePools()
    let outcome = await pools.serving(logger: Logger(label: "bench")) { () async -> Result<(gets: [String: Double], sets: [String: Double]), any Error> in
        do { return .success(try await measure(CredentialStore(backend: PostgresStoreBackend(url: storeURL, pools: pools), keySource: key), rounds: 200)) } catch {
            return .failure(error)
        }
    }
    let measured = try outcome.get()
    shared["postgres"] = ["get": measured.gets, "set": measured.sets]
}
if environment["MULTIAUTH_BENCH_MOTO_URL"] != nil {
    let http = CurlHTTPClient()
    for scheme in ["secretsmanager", "ssm"] {
        let backend = try AWSStoreBackend(url: "\(scheme)://us-east-1/\(name)", credentials: DefaultCredentialsChain.make(http: http), http: http)
        // An SSM parameter holds 8 KB: the same 20 items, 100 bytes each, there.
        let measured = try await measure(CredentialStore(backend: backend, keySource: key), rounds: 50, itemSize: scheme == "ssm" ? 100 : 1200)
        shared[scheme] = ["get": measured.gets, "set": measured.sets]
    }
}

let passphrasePath = folder + "/pass.store"
try await CredentialStore(path: passphrasePath, keySource: .passphrase(Array("bench passphrase".utf8))).initialize()
let fresh = CredentialStore(path: passphrasePath, keySource: .passphrase(Array("bench passphrase".utf8)))
let unlock = milliseconds(try await clock.measure { _ = try await fresh.list() })
let afterUnlock = milliseconds(try await clock.measure { _ = try await fresh.list() })

let report: [String: Any] = [
    "get_keyfile": file.gets, "set_keyfile": file.sets, "shared": shared,
    "passphrase_unlock_ms": unlock, "passphrase_get_after_unlock_ms": afterUnlock, "items": 20,
]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))

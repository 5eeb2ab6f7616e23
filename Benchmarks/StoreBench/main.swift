// Measures the credential store's library calls and prints one JSON object:
// get and set with a key file (median and p99 milliseconds; set includes both fsyncs),
// and the one-time passphrase unlock (scrypt N=2^15, r=8, p=1).
import CredentialStore
import Foundation

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
let store = CredentialStore(path: folder + "/bench.store", keySource: .keyFile(path: folder + "/key"))
try await store.initialize()
for index in 0..<20 {
    try await store.set(Array("token-\(index)-".utf8) + [UInt8](repeating: 0x61, count: 1200), service: "svc", account: "user\(index)")
}
var sets: [Double] = []
var gets: [Double] = []
for index in 0..<200 {
    sets.append(milliseconds(try await clock.measure {
        try await store.set(Array("value-\(index)".utf8), service: "svc", account: "user\(index % 20)")
    }))
    gets.append(milliseconds(try await clock.measure {
        _ = try await store.get(service: "svc", account: "user\(index % 20)")
    }))
}

let passphrasePath = folder + "/pass.store"
try await CredentialStore(path: passphrasePath, keySource: .passphrase(Array("bench passphrase".utf8))).initialize()
let fresh = CredentialStore(path: passphrasePath, keySource: .passphrase(Array("bench passphrase".utf8)))
let unlock = milliseconds(try await clock.measure { _ = try await fresh.list() })
let afterUnlock = milliseconds(try await clock.measure { _ = try await fresh.list() })

let report: [String: Any] = [
    "get_keyfile": summary(gets), "set_keyfile": summary(sets),
    "passphrase_unlock_ms": unlock, "passphrase_get_after_unlock_ms": afterUnlock, "items": 20,
]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))

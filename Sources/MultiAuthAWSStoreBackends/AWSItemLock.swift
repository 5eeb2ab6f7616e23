import Logging
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthStore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A lock that is an item holding who has it and until when. Every change of hands is a
/// compare-and-swap on the item's version (``AWSItemService/swap(_:_:expecting:)``): taking a
/// free or expired lock, and releasing a held one. So two hosts that find the same expired
/// lock cannot both take it, and a holder whose lock expired and was taken over cannot
/// release the new holder's. The item is never deleted.
///
/// An item that is not a lock MultiAuth wrote (not JSON, or an expiry beyond any lifetime)
/// is treated as expired once the caller has waited its whole timeout for it, with a warning.
final class AWSItemLock: StoreBackendLock {
    private let items: any AWSItemService
    private let name: String
    /// The item's version while we hold it; nil once released.
    private let version: Mutex<String?>

    private init(items: any AWSItemService, name: String, version: String) {
        self.items = items
        self.name = name
        self.version = Mutex(version)
    }

    deinit {
        guard let version = taken() else { return }
        let items = items, name = name
        Task { _ = try? await items.swap(name, State.released.bytes, expecting: version) }
    }

    var isHeld: Bool { version.withLock { $0 != nil } }

    /// Marks the lock free, unless another host took it over meanwhile (it had expired).
    /// Should the call fail, the lock expires after its lifetime.
    func release() async {
        guard let version = taken() else { return }
        _ = try? await items.swap(name, State.released.bytes, expecting: version)
    }

    /// The version, the first time only.
    private func taken() -> String? {
        version.withLock { value -> String? in
            defer { value = nil }
            return value
        }
    }

    /// What the item holds.
    struct State: Codable {
        var holder: String
        var expires: Double
        var released: Bool?

        static let released = State(holder: "", expires: 0, released: true)

        var bytes: [UInt8] { (try? JSONEncoder().encode(self)).map { [UInt8]($0) } ?? [] }

        /// Free to take at `now`; nil when the item is not a lock MultiAuth wrote.
        static func isFree(_ bytes: [UInt8], now: Double, lifetime: Double) -> Bool? {
            guard let state = try? JSONDecoding.decode(State.self, from: bytes, what: "the lock item"),
                state.expires.isFinite, state.expires <= now + 2 * lifetime
            else { return nil }
            return state.released == true || state.expires < now
        }
    }

    static func acquire(
        items: any AWSItemService, name: String, location: String, lifetime: Double, timeout: Double, clock: TimeSource, logger: Logger
    ) async throws(StoreError) -> AWSItemLock {
        let start = clock.now()
        let retry = Backoff(base: .milliseconds(50), cap: .seconds(1), maxAttempts: .max)
        var attempts = 0
        while true {
            let mine = State(holder: "\(ProcessInfo.processInfo.hostName) pid \(ProcessInfo.processInfo.processIdentifier)", expires: clock.now() + lifetime)
            let waited = clock.now() - start
            do {
                guard let current = try await items.value(name) else {
                    if let version = try await items.create(name, mine.bytes) { return AWSItemLock(items: items, name: name, version: version) }
                    continue
                }
                let free = State.isFree(current.bytes, now: clock.now(), lifetime: lifetime)
                if free == nil, waited >= timeout {
                    logger.warning(
                        "the store's lock item is not one MultiAuth wrote; taken over after waiting the lock timeout",
                        metadata: ["store": "\(location)", "item": "\(name)"])
                }
                if free == true || (free == nil && waited >= timeout),
                    let version = try await items.swap(name, mine.bytes, expecting: current.version)
                {
                    return AWSItemLock(items: items, name: name, version: version)
                }
            } catch {
                throw .writeFailed(path: location, reason: "the lock \(name): \(error.reason)")
            }
            guard waited < timeout else { throw .locked(path: location, waitedSeconds: waited) }
            attempts += 1
            let remaining = Duration.milliseconds(Int64(max(0, timeout - waited) * 1000) + 1)
            do { try await Task.sleep(for: min(retry.delay(after: attempts), remaining)) } catch {
                throw .locked(path: location, waitedSeconds: clock.now() - start)
            }
        }
    }
}

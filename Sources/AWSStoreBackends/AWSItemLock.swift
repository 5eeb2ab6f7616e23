import CredentialProviders
import CredentialStore
import MultiAuthCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A lock that is an item created only if absent, holding who took it and until when.
/// Released by deleting the item. An item past its time is taken over (its holder died
/// or hung): the expiry bounds how long a dead host blocks the others.
final class AWSItemLock: StoreBackendLock {
    private let items: any AWSItemService
    private let name: String
    private let held = Mutex(true)

    private init(items: any AWSItemService, name: String) {
        self.items = items
        self.name = name
    }

    deinit {
        guard taken() else { return }
        let items = items, name = name
        Task { try? await items.delete(name) }
    }

    var isHeld: Bool { held.withLock { $0 } }

    /// Deletes the lock item. Should that fail, the item expires after its lifetime.
    func release() async {
        guard taken() else { return }
        try? await items.delete(name)
    }

    /// True the first time only.
    private func taken() -> Bool {
        held.withLock { value -> Bool in
            defer { value = false }
            return value
        }
    }

    private struct Holder: Codable {
        let holder: String
        let expires: Double
    }

    static func acquire(
        items: any AWSItemService, name: String, location: String, lifetime: Double, timeout: Double, clock: TimeSource
    ) async throws(StoreError) -> AWSItemLock {
        let start = clock.now()
        let retry = Backoff(base: .milliseconds(50), cap: .seconds(1), maxAttempts: .max)
        var attempts = 0
        while true {
            let holder = Holder(holder: "\(ProcessInfo.processInfo.hostName) pid \(ProcessInfo.processInfo.processIdentifier)", expires: clock.now() + lifetime)
            let body = (try? JSONEncoder().encode(holder)).map { [UInt8]($0) } ?? []
            do {
                if try await items.create(name, body) { return AWSItemLock(items: items, name: name) }
                if let current = try await items.value(name),
                    let found = try? JSONDecoding.decode(Holder.self, from: current.bytes, what: "the lock item"), found.expires < clock.now()
                {
                    try await items.delete(name)
                    continue
                }
            } catch {
                throw .writeFailed(path: location, reason: "the lock \(name): \(error.reason)")
            }
            let waited = clock.now() - start
            guard waited < timeout else { throw .locked(path: location, waitedSeconds: waited) }
            attempts += 1
            do { try await retry.wait(after: attempts) } catch { throw .locked(path: location, waitedSeconds: clock.now() - start) }
        }
    }
}

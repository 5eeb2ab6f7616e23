import MultiAuthCore

/// Exclusive use of a ``CredentialStore`` across processes, from
/// ``CredentialStore/lease(timeout:)`` until ``release()``: reads and writes through the lease do
/// not take the lock again, and no other process or task can read or write the store
/// meanwhile. Release it as soon as the read-modify-write is done (dropping it releases it too).
public final class StoreLease: Sendable {
    private let store: CredentialStore
    private let lock: any StoreBackendLock

    init(store: CredentialStore, lock: any StoreBackendLock) {
        self.store = store
        self.lock = lock
    }

    deinit {
        let lock = lock
        if lock.isHeld { Task { await lock.release() } }
    }

    /// The secret for (service, account), which must have been stored for `environment`.
    public func get(service: String, account: String, environment: StoreEnvironment = .init()) async throws(StoreError) -> [UInt8] {
        try checkHeld()
        return try await store.secret(service: service, account: account, environment: environment)
    }

    /// Stores `secret` for (service, account) under `environment`, replacing an earlier value.
    public func set(
        _ secret: [UInt8], service: String, account: String, label: String = "", environment: StoreEnvironment = .init()
    ) async throws(StoreError) {
        try checkHeld()
        let change = CredentialStore.setting(secret, service: service, account: account, label: label, environment: environment)
        try await store.modifyHoldingLock(change)
    }

    /// Lets other processes (and hosts) in.
    public func release() async { await lock.release() }

    private func checkHeld() throws(StoreError) {
        guard lock.isHeld else { throw .writeFailed(path: store.path, reason: "the store lease was already released") }
    }
}

/// A lease is what a saved login's refresh holds (``MultiAuthCore/LockedRefresh``).
extension StoreLease: RefreshLock {}

/// A lock a ``LockedRefresh`` holds: released once the refresh is over, whatever happened.
package protocol RefreshLock: Sendable {
    /// Lets others in (a shared backend's lock is given back over the network, so this waits
    /// until it is).
    func release() async
}

extension HeldFileLock: RefreshLock {}

/// The one "lock, read again, refresh only if nobody did, write back" sequence, behind the
/// saved logins (under the credential store's lock) and the SSO token cache (under its lock
/// file): processes that find the same value stale at once refresh it once, and the others
/// take the first one's result, so a refresh token is never spent twice.
package enum LockedRefresh {
    /// Takes `lock`, reads the stored value again, and returns it as it is when
    /// `refreshedMeanwhile` says another process refreshed it while this one waited; else
    /// refreshes it, writes the new value back and returns it. The lock is released whatever
    /// happens.
    package static func run<Held: RefreshLock, Value, Failure: Error>(
        lock: () async throws(Failure) -> Held,
        read: (Held) async throws(Failure) -> Value,
        refreshedMeanwhile: (Value) -> Bool,
        refresh: (Value) async throws(Failure) -> Value,
        write: (Value, Held) async throws(Failure) -> Void
    ) async throws(Failure) -> Value {
        let held = try await lock()
        do {
            let stored = try await read(held)
            if refreshedMeanwhile(stored) {
                await held.release()
                return stored
            }
            let fresh = try await refresh(stored)
            try await write(fresh, held)
            await held.release()
            return fresh
        } catch {
            await held.release()
            throw error
        }
    }
}

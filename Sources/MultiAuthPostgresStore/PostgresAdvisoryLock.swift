import MultiAuthCore
import MultiAuthStore
import PostgresNIO
import Synchronization

/// The store's lock across hosts: `pg_advisory_lock` on a connection of its own, waited for
/// under `lock_timeout`. Releasing closes that connection, which ends the lock; so does the
/// death of the process holding it. The connection is not the pool's: a session lock whose
/// unlock failed would pass, held, to the pool's next lease.
final class PostgresAdvisoryLock: StoreBackendLock {
    private let connection: Mutex<PostgresConnection?>

    private init(_ connection: PostgresConnection) { self.connection = Mutex(connection) }

    deinit { taken()?.closeInBackground() }

    var isHeld: Bool { connection.withLock { $0 != nil } }

    func release() async {
        try? await taken()?.close()
    }

    /// The connection, once: nil after the first release.
    private func taken() -> PostgresConnection? {
        connection.withLock { value -> PostgresConnection? in
            defer { value = nil }
            return value
        }
    }

    /// Waits up to `timeout` seconds for the lock named `key`.
    static func acquire(connections: PostgresConnections, key: String, timeout: Double) async throws(StoreError) -> PostgresAdvisoryLock {
        let location = connections.url.location
        let start = ContinuousClock.now
        let connection: PostgresConnection
        do { connection = try await connections.connect() } catch { throw .writeFailed(path: location, reason: error.reason) }
        let milliseconds = max(1, Int(timeout * 1000))
        let logger = connections.logger
        do throws(PostgresFailure) {
            try await connections.bounded("taking the lock", seconds: timeout + connections.timeout, closing: connection) {
                // A row sequence arrives before the statement has run: the lock is ours only
                // once its row is read.
                _ = try await connection.query("SELECT set_config('lock_timeout', \(String(milliseconds) + "ms"), false)", logger: logger).collect()
                _ = try await connection.query("SELECT pg_advisory_lock(hashtextextended(\(key), 0))", logger: logger).collect()
            }
        } catch {
            connection.closeInBackground()
            if error.isLockTimeout {
                let waited = ContinuousClock.now - start
                throw .locked(path: location, waitedSeconds: Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18)
            }
            throw .writeFailed(path: location, reason: "the lock: \(error.reason)")
        }
        return PostgresAdvisoryLock(connection)
    }
}

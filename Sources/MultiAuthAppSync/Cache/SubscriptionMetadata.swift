import GRDB
import Logging
import MultiAuthCore
import Synchronization

/// A subscription a client had open, as kept in `<prefix>_subscriptionMetadataCache.db`: rows
/// are written when a subscription starts and removed when it ends, so the rows left after a
/// crash or a kill are the subscriptions to resume (``AppSyncClient/resume(_:)``).
public struct StoredSubscription: Sendable, Equatable {
    /// The subscription's id in the database.
    public let id: String
    /// The GraphQL document.
    public let document: String
    /// Its variables (JSON text), if any.
    public let variables: String?
    /// When it started (seconds since 1970).
    public let startedAt: Int64
    /// When its last data arrived (seconds since 1970; written at most once a second), if any.
    public let lastDataAt: Int64?
}

/// The `subscriptions` table of the subscription metadata database. Data times are kept in
/// memory and written together at most once a second (one transaction for every
/// subscription of the client), so a fan-out to many subscriptions costs one write, not one each.
final class SubscriptionMetadata: Sendable {
    static let schema = """
        CREATE TABLE IF NOT EXISTS subscription_metadata (id TEXT PRIMARY KEY, last_sync INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS subscriptions (
            id TEXT PRIMARY KEY, document TEXT NOT NULL, variables TEXT, started_at INTEGER NOT NULL, last_data_at INTEGER)
        """
    private struct Pending {
        var times: [String: Int64] = [:]
        var lastFlush: Int64 = 0
    }

    let database: DatabaseQueue
    private let logger: Logger
    private let pending = Mutex(Pending())

    init(database: DatabaseQueue, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    func record(id: String, document: String, variables: String?, at time: Int64) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO subscriptions (id, document, variables, started_at, last_data_at) VALUES (?, ?, ?, ?, NULL)",
                arguments: [id, document, variables, time])
        }
    }

    /// Notes data for `id` at `time` (without waiting); every noted time is written when a
    /// second has passed since the last write.
    func touched(id: String, at time: Int64) {
        let batch: [String: Int64]? = pending.withLock { state in
            state.times[id] = time
            guard time > state.lastFlush else { return nil }
            state.lastFlush = time
            defer { state.times.removeAll() }
            return state.times
        }
        guard let batch else { return }
        Task { [database, logger] in
            do {
                try await database.write { db in
                    for (id, time) in batch { try db.execute(sql: "UPDATE subscriptions SET last_data_at = ? WHERE id = ?", arguments: [time, id]) }
                }
            } catch {
                logger.warning("subscription data times not written", metadata: ["reason": "\(error)"])
            }
        }
    }

    func remove(id: String) async throws {
        pending.withLock { $0.times[id] = nil }
        try await database.write { try $0.execute(sql: "DELETE FROM subscriptions WHERE id = ?", arguments: [id]) }
    }

    func all() async throws -> [StoredSubscription] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, document, variables, started_at, last_data_at FROM subscriptions ORDER BY started_at, id").map { row in
                StoredSubscription(id: row[0], document: row[1], variables: row[2], startedAt: row[3], lastDataAt: row[4])
            }
        }
    }
}

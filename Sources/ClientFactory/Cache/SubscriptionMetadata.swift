import GRDB
import MultiAuthCore

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
actor SubscriptionMetadata {
    static let schema = """
        CREATE TABLE IF NOT EXISTS subscription_metadata (id TEXT PRIMARY KEY, last_sync INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS subscriptions (
            id TEXT PRIMARY KEY, document TEXT NOT NULL, variables TEXT, started_at INTEGER NOT NULL, last_data_at INTEGER)
        """
    let database: DatabaseQueue
    private var pending: [String: Int64] = [:]
    private var lastFlush: Int64 = 0

    init(database: DatabaseQueue) { self.database = database }

    func record(id: String, document: String, variables: String?, at time: Int64) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO subscriptions (id, document, variables, started_at, last_data_at) VALUES (?, ?, ?, ?, NULL)",
                arguments: [id, document, variables, time])
        }
    }

    /// Notes data for `id` at `time`; writes every noted time when a second has passed since the last write.
    func touched(id: String, at time: Int64) async throws {
        pending[id] = time
        guard time > lastFlush else { return }
        lastFlush = time
        let batch = pending
        pending.removeAll()
        try await database.write { db in
            for (id, time) in batch { try db.execute(sql: "UPDATE subscriptions SET last_data_at = ? WHERE id = ?", arguments: [time, id]) }
        }
    }

    func remove(id: String) async throws {
        pending[id] = nil
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

#if canImport(FoundationEssentials)
import MultiAuthCore
import FoundationEssentials
#else
import Foundation
#endif
import GRDB
import Synchronization
import MultiAuthCrypto

/// Responses kept in `<prefix>_queries.db`, keyed by the operation text and its variables
/// in canonical form (keys sorted), so the same query with the same variables hits. Recent
/// answers are also held in memory (write-through), so a hit costs no database round trip.
struct QueryCache: Sendable {
    static let schema = """
        CREATE TABLE IF NOT EXISTS queries (
            key TEXT PRIMARY KEY, operation TEXT NOT NULL, variables TEXT NOT NULL, response BLOB NOT NULL, stored_at INTEGER NOT NULL)
        """
    let database: DatabaseQueue
    let memory = ResponseMemory()

    /// The cache key: SHA-256 of the operation, a NUL, and the canonical variables.
    static func key(operation: String, variables: JSONValue?) -> (key: String, canonicalVariables: String) {
        let canonical = (variables ?? .object([:])).description
        return (SHA256Hasher.hash(Array(operation.utf8) + [0] + Array(canonical.utf8)).hex, canonical)
    }

    /// A cached answer: its JSON, and its decoded form once decoded.
    struct Answer: Sendable {
        let key: String
        let json: [UInt8]
        let result: GraphQLResult?
    }

    func response(operation: String, variables: JSONValue?) async throws -> Answer? {
        let key = Self.key(operation: operation, variables: variables).key
        if let held = memory.answer(for: key) { return held }
        let stored = try await database.read { db in
            try Data.fetchOne(db, sql: "SELECT response FROM queries WHERE key = ?", arguments: [key]).map { [UInt8]($0) }
        }
        guard let stored else { return nil }
        return Answer(key: key, json: stored, result: nil)
    }

    func store(_ response: [UInt8], result: GraphQLResult?, operation: String, variables: JSONValue?, at time: Int64) async throws {
        let (key, canonical) = Self.key(operation: operation, variables: variables)
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO queries (key, operation, variables, response, stored_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [key, operation, canonical, Data(response), time])
        }
        memory.store(Answer(key: key, json: response, result: result))
    }
}

/// The in-memory tier of a query cache: at most 4 MiB of the most recently stored answers,
/// kept decoded so a hit does not parse JSON again.
final class ResponseMemory: Sendable {
    private struct State: Sendable {
        var responses: [String: QueryCache.Answer] = [:]
        var order: [String] = []
        var bytes = 0
    }

    private static let capacity = 4 << 20
    private let state = Mutex(State())

    func answer(for key: String) -> QueryCache.Answer? { state.withLock { $0.responses[key] } }

    func store(_ answer: QueryCache.Answer) {
        let key = answer.key
        state.withLock { state in
            if let old = state.responses.updateValue(answer, forKey: key) {
                state.bytes -= old.json.count
            } else {
                state.order.append(key)
            }
            state.bytes += answer.json.count
            while state.bytes > Self.capacity, !state.order.isEmpty {
                let evicted = state.order.removeFirst()
                state.bytes -= state.responses.removeValue(forKey: evicted)?.json.count ?? 0
            }
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
}

/// Mutations that failed for network reasons, kept in `<prefix>_offlineMutations.db` and
/// replayed in the order they were made. Each insert is its own committed transaction, so a
/// crash loses nothing that was acknowledged.
struct OfflineMutationQueue: Sendable {
    static let schema = """
        CREATE TABLE IF NOT EXISTS mutations (
            id INTEGER PRIMARY KEY AUTOINCREMENT, operation TEXT NOT NULL, variables TEXT NOT NULL, created_at INTEGER NOT NULL)
        """
    let database: DatabaseQueue

    struct Pending: Sendable {
        let id: Int64
        let operation: String
        let variables: String
    }

    @discardableResult
    func enqueue(operation: String, variables: JSONValue?, at time: Int64) async throws -> Int64 {
        let canonical = (variables ?? .object([:])).description
        return try await database.write { db in
            try db.execute(
                sql: "INSERT INTO mutations (operation, variables, created_at) VALUES (?, ?, ?)", arguments: [operation, canonical, time])
            return db.lastInsertedRowID
        }
    }

    func pending(limit: Int = 500) async throws -> [Pending] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, operation, variables FROM mutations ORDER BY id LIMIT ?", arguments: [limit]).map {
                Pending(id: $0["id"], operation: $0["operation"], variables: $0["variables"])
            }
        }
    }

    func remove(_ id: Int64) async throws {
        try await database.write { db in try db.execute(sql: "DELETE FROM mutations WHERE id = ?", arguments: [id]) }
    }

    func count() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mutations") ?? 0 }
    }
}

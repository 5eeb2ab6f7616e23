import GRDB
import MultiAuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three SQLite databases of one client, named as the AppSync SDK names them:
/// `<prefix>_queries.db`, `<prefix>_offlineMutations.db` and
/// `<prefix>_subscriptionMetadataCache.db` with a prefix, the bare names without.
public struct ClientDatabases: Sendable {
    /// The database files, in the order above.
    public let queriesPath: String, offlineMutationsPath: String, subscriptionMetadataPath: String
    let queries: DatabaseQueue
    let offlineMutations: DatabaseQueue
    let subscriptionMetadata: DatabaseQueue

    /// The file names for `prefix` (nil: no prefix).
    public static func fileNames(prefix: String?) -> [String] {
        ["queries.db", "offlineMutations.db", "subscriptionMetadataCache.db"].map { name in prefix.map { "\($0)_\(name)" } ?? name }
    }

    /// Opens (creating when missing) the databases of client `entry` in `directory`.
    /// - Throws: ``CacheError`` naming the entry and the file; a damaged file is moved aside.
    static func open(directory: String, prefix: String?, entry: String) throws(CacheError) -> ClientDatabases {
        try checkFolder(directory, entry: entry)
        let paths = fileNames(prefix: prefix).map { directory + "/" + $0 }
        for path in paths { try checkFile(path, entry: entry) }
        let queries = try openDatabase(paths[0], entry: entry, schema: QueryCache.schema)
        let mutations = try openDatabase(paths[1], entry: entry, schema: OfflineMutationQueue.schema)
        let subscriptions = try openDatabase(paths[2], entry: entry, schema: SubscriptionMetadata.schema)
        return ClientDatabases(
            queriesPath: paths[0], offlineMutationsPath: paths[1], subscriptionMetadataPath: paths[2], queries: queries,
            offlineMutations: mutations, subscriptionMetadata: subscriptions)
    }

    /// The cache folder is checked as the store's is, and more strictly: it must be ours and
    /// closed to writers other than us, or another user could plant a database whose answers
    /// we would print as cache hits.
    private static func checkFolder(_ directory: String, entry: String) throws(CacheError) {
        do { try PathSafety.prepareFolder(directory, mustBeOwned: true) } catch { throw CacheError(error, entry: entry) }
        guard access(directory, W_OK) == 0 else {
            throw .unwritableDirectory(entry: entry, path: directory, reason: "not writable")
        }
    }

    /// An existing database must be a regular file of ours that nobody else can write.
    private static func checkFile(_ path: String, entry: String) throws(CacheError) {
        do { _ = try PathSafety.checkFile(path, forbiddenMode: 0o022) } catch { throw CacheError(error, entry: entry) }
    }

    private static func openDatabase(_ path: String, entry: String, schema: String) throws(CacheError) -> DatabaseQueue {
        do {
            // Other processes (another `multiauth graphql`) may hold the file for a moment: wait
            // up to 10 s for them instead of failing with "database is locked".
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { try $0.execute(sql: schema) }
            chmod(path, 0o600)
            return queue
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            let aside = path + ".corrupt-\(Int(TimeSource.system.now()))"
            do { try FileManager.default.moveItem(atPath: path, toPath: aside) } catch {
                throw .database(entry: entry, file: path, reason: "damaged, and it could not be moved aside")
            }
            throw .corruptDatabase(entry: entry, file: path, movedTo: aside)
        } catch {
            throw .database(entry: entry, file: path, reason: "\(error)")
        }
    }
}

extension ClientDatabases {
    /// Which caches ``AppSyncClient/clearCaches(_:)`` empties.
    public struct ClearOptions: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The query response cache.
        public static let queries = ClearOptions(rawValue: 1)
        /// The offline mutation queue.
        public static let mutations = ClearOptions(rawValue: 2)
        /// The subscription metadata.
        public static let subscriptions = ClearOptions(rawValue: 4)
        /// All three.
        public static let all: ClearOptions = [.queries, .mutations, .subscriptions]
    }

    /// Empties the chosen caches; returns each one's error, if any (the others are still cleared).
    func clear(_ options: ClearOptions, entry: String) async -> [CacheError] {
        var errors: [CacheError] = []
        let targets: [(ClearOptions, DatabaseQueue, String, String)] = [
            (.queries, queries, queriesPath, "DELETE FROM queries"),
            (.mutations, offlineMutations, offlineMutationsPath, "DELETE FROM mutations"),
            (.subscriptions, subscriptionMetadata, subscriptionMetadataPath, "DELETE FROM subscription_metadata; DELETE FROM subscriptions"),
        ]
        for (option, queue, path, sql) in targets where options.contains(option) {
            do { try await queue.write { try $0.execute(sql: sql) } } catch {
                errors.append(.database(entry: entry, file: path, reason: "\(error)"))
            }
        }
        return errors
    }
}

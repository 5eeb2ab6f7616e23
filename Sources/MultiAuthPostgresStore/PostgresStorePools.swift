public import Logging
public import ServiceLifecycle
package import PostgresNIO
import Synchronization

/// The connection pools (postgres-nio's `PostgresClient`) of the PostgreSQL stores a process
/// opens, as one `Service` for the caller's `ServiceGroup`: each pool made for a store runs
/// under ``run()`` and stops with the group's graceful shutdown. A store's statements wait for
/// their pool to run, each within the store's timeout, so run this service before using one.
///
/// A process that has no group of its own (a command) runs it around its work with
/// ``serving(logger:_:)``.
public final class PostgresStorePools: Service, Sendable {
    private let made: AsyncStream<PostgresClient>
    private let newPool: AsyncStream<PostgresClient>.Continuation
    private let pools = Mutex<[String: PostgresClient]>([:])

    /// No pools yet: they are made as stores are opened.
    public init() {
        (made, newPool) = AsyncStream.makeStream(of: PostgresClient.self)
    }

    /// The pool of at most four connections (a statement, the listener, and room for a
    /// gateway's concurrent reads) for the database `url` names, made on first use.
    package func pool(for url: PostgresStoreURL, connectTimeout: Duration, logger: Logger) -> PostgresClient {
        pools.withLock { pools in
            // One pool per database and login: the stores (rows) in it share it.
            let key = "\(url.user)@\(url.host):\(url.port)/\(url.database) \(url.sslMode) \(url.rootCertificates ?? "") \(connectTimeout)"
            if let pool = pools[key] { return pool }
            let pool = PostgresClient(configuration: url.clientConfiguration(connectTimeout: connectTimeout, maximumConnections: 4), backgroundLogger: logger)
            pools[key] = pool
            newPool.yield(pool)
            return pool
        }
    }

    /// Runs every pool made, those made later included, until the group shuts down.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for await pool in made.cancelOnGracefulShutdown() {
                group.addTask { await pool.run() }
            }
        }
    }

    /// Runs `work` while these pools run in a `ServiceGroup` of their own, then shuts it
    /// down gracefully and returns what `work` returned.
    public func serving<Result: Sendable>(logger: Logger, _ work: () async -> Result) async -> Result {
        let group = ServiceGroup(configuration: .init(services: [self], logger: logger))
        return await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try? await group.run() }
            let result = await work()
            await group.triggerGracefulShutdown()
            await tasks.waitForAll()
            return result
        }
    }
}

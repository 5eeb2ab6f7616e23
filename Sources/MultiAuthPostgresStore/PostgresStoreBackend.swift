public import Logging
public import MultiAuthCore
public import MultiAuthStore
import NIOCore
public import PostgresNIO

/// A store kept in PostgreSQL, for hosts that share one: the sealed image in a row of
/// `multiauth_store`, which `store init` creates:
///
/// ```sql
/// CREATE TABLE multiauth_store (
///     name       text PRIMARY KEY,     -- the store's name (`?store=`), or NAME.ATTACHMENT
///     image      bytea NOT NULL,       -- the sealed image: ciphertext and its header only
///     version    bigint NOT NULL,      -- raised by every write; a write names the one it replaces
///     format     integer NOT NULL,     -- this table's layout (1)
///     updated_at timestamptz NOT NULL DEFAULT now()
/// );
/// ```
///
/// Creating it is safe when many hosts do so at once on a fresh database: the step runs under
/// a transaction-scoped advisory lock and records the schema's version in `multiauth_schema`
/// (a newer version there is refused, never changed).
///
/// A write is one statement that changes the row only at the version it read and notifies
/// channel `multiauth_store` with the store's name, so gateways that listen reload at once.
/// The lock is a session advisory lock on its own connection, waited for under
/// `lock_timeout`: a process that dies releases it with its connection. Every connect and
/// statement is bounded by `timeout`.
///
/// Statements and the listener share a pool, postgres-nio's `PostgresClient`, which the caller
/// runs as a `Service` in its service group: its own (``init(url:client:timeout:logger:)``),
/// or one of ``PostgresStorePools`` (``init(url:pools:timeout:logger:)``).
public final class PostgresStoreBackend: StoreBackend {
    /// Where the store is.
    public let url: PostgresStoreURL
    let connections: PostgresConnections

    static let table = "multiauth_store"
    static let channel = "multiauth_store"
    static let format: Int32 = 1

    /// The store `url` names, on its pool among `pools` (whose `run()` the caller's service
    /// group runs); each connect and statement gives up after `timeout`.
    public convenience init(url: PostgresStoreURL, pools: PostgresStorePools, timeout: Duration = .seconds(10), logger: Logger = .disabled) {
        self.init(url: url, client: pools.pool(for: url, connectTimeout: timeout, logger: logger), timeout: timeout, logger: logger)
    }

    /// The store `url` names, its statements run on `client`, whose `run()` the caller runs
    /// (as a service of its `ServiceGroup`); each connect and statement gives up after
    /// `timeout`. The lock's connection comes from `url`.
    public init(url: PostgresStoreURL, client: PostgresClient, timeout: Duration = .seconds(10), logger: Logger = .disabled) {
        self.url = url
        connections = PostgresConnections(url: url, timeout: timeout.inSeconds, logger: logger, client: client)
    }

    public var location: String { url.location }

    /// `postgres:` and the store's name: an image copied from another row is refused.
    public var bindingName: String? { "postgres:" + url.storeName }

    public func read() async throws(StoreError) -> StoreImage? {
        try await row(url.storeName).map { StoreImage(bytes: $0.image, version: StoreVersion(String($0.version))) }
    }

    public func create(_ image: [UInt8]) async throws(StoreError) {
        try await insert(url.storeName, image)
    }

    public func replace(_ image: [UInt8], expecting version: StoreVersion) async throws(StoreError) {
        guard let expected = Int64(version.token) else { throw .conflict(path: location) }
        let name = url.storeName
        let bytes = ByteBuffer(bytes: image)
        let changed = try await writing { connection in
            try await connection.query(
                """
                WITH changed AS (
                    UPDATE multiauth_store SET image = \(bytes), version = version + 1, updated_at = now()
                    WHERE name = \(name) AND version = \(expected) AND format = 1 RETURNING name)
                SELECT pg_notify('multiauth_store', name) FROM changed
                """, logger: self.connections.logger
            ).collect().count
        }
        guard changed == 1 else { throw .conflict(path: location) }
    }

    public func lock(timeout: Duration) async throws(StoreError) -> any StoreBackendLock {
        try await PostgresAdvisoryLock.acquire(connections: connections, key: "multiauth_store:" + url.storeName, timeout: timeout.inSeconds)
    }

    public func version() async throws(StoreError) -> StoreVersion? {
        try await row(url.storeName).map { StoreVersion(String($0.version)) }
    }

    /// A notification is a hint, which any role that may connect can send: the store counts
    /// as changed only when its version did, looked up at most every 50 ms however many
    /// notifications come.
    public func changes(pollingEvery interval: Duration) -> AsyncStream<Void> {
        let hints = PostgresChangeListener.changes(connections: connections, storeName: url.storeName, polling: StoreChangePolling.stream(self, every: interval))
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let follower = Task {
                var last = try? await self.version()
                for await _ in hints {
                    if let now = try? await self.version(), now != last {
                        last = now
                        continuation.yield()
                    }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            continuation.onTermination = { _ in follower.cancel() }
        }
    }

    public func readAttachment(_ name: String) async throws(StoreError) -> [UInt8]? {
        try await row(url.storeName + "." + name)?.image
    }

    public func createAttachment(_ name: String, _ bytes: [UInt8]) async throws(StoreError) {
        try await insert(url.storeName + "." + name, bytes)
    }

    // MARK: statements

    private struct Row: Sendable {
        let image: [UInt8]
        let version: Int64
    }

    /// The row `name`, or nil when there is none or no table.
    private func row(_ name: String) async throws(StoreError) -> Row? {
        let found: (ByteBuffer, Int64, Int32)?
        do throws(PostgresFailure) {
            found = try await connections.withConnection("the statement") { connection in
                let rows = try await connection.query(
                    "SELECT image, version, format FROM multiauth_store WHERE name = \(name)", logger: self.connections.logger)
                for try await row in rows { return try row.decode((ByteBuffer, Int64, Int32).self) }
                return nil
            }
        } catch {
            if error.isMissingTable { return nil }
            throw .readFailed(path: location, reason: error.reason)
        }
        guard let found else { return nil }
        guard found.2 == Self.format else { throw .unsupportedVersion(path: location, version: Int(found.2)) }
        return Row(image: Array(buffer: found.0), version: found.1)
    }

    /// Creates the schema when missing (``schemaStatement``), then the row `name`; a row
    /// already there is left as it is.
    private func insert(_ name: String, _ image: [UInt8]) async throws(StoreError) {
        let bytes = ByteBuffer(bytes: image)
        let inserted: Int
        do throws(PostgresFailure) {
            inserted = try await connections.withConnection("the statement") { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: Self.schemaStatement), logger: self.connections.logger).collect()
                return try await connection.query(
                    """
                    WITH added AS (
                        INSERT INTO multiauth_store (name, image, version, format) VALUES (\(name), \(bytes), 1, 1)
                        ON CONFLICT (name) DO NOTHING RETURNING name)
                    SELECT pg_notify('multiauth_store', name) FROM added
                    """, logger: self.connections.logger
                ).collect().count
            }
        } catch {
            if error.sqlState == Self.newerSchemaState { throw .unsupportedVersion(path: location, version: 2) }
            throw .writeFailed(path: location, reason: error.reason)
        }
        guard inserted == 1 else { throw .storeExists(path: name == url.storeName ? location : location + " (\(name))") }
    }

    /// The schema's version, recorded in `multiauth_schema`.
    static let schemaVersion = 1
    /// The SQLSTATE the schema step raises when the database holds a newer schema.
    static let newerSchemaState = "MA001"

    /// Creates the table and records the schema's version, once, however many hosts run it at
    /// the same moment on a fresh database. `CREATE TABLE IF NOT EXISTS` alone is not safe
    /// there (two sessions both find no table; one fails with 23505 on `pg_type`), so the
    /// step holds a transaction-scoped advisory lock (one `DO` block is one transaction) and
    /// also takes a duplicate that slipped past it as "made already".
    static let schemaStatement = """
        DO $$
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended('multiauth_store:schema', 0));
            BEGIN
                CREATE TABLE IF NOT EXISTS multiauth_store (
                    name text PRIMARY KEY, image bytea NOT NULL, version bigint NOT NULL, format integer NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now());
                CREATE TABLE IF NOT EXISTS multiauth_schema (component text PRIMARY KEY, version integer NOT NULL);
            EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_object THEN
                NULL;
            END;
            INSERT INTO multiauth_schema (component, version) VALUES ('multiauth_store', \(schemaVersion))
                ON CONFLICT (component) DO NOTHING;
            IF (SELECT version FROM multiauth_schema WHERE component = 'multiauth_store') > \(schemaVersion) THEN
                RAISE EXCEPTION 'the database holds a newer multiauth_store schema' USING ERRCODE = '\(newerSchemaState)';
            END IF;
        END
        $$
        """

    /// Runs a writing statement; its failure is a ``StoreError/writeFailed(path:reason:)``.
    private func writing<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        do throws(PostgresFailure) { return try await connections.withConnection("the statement", work) } catch {
            throw .writeFailed(path: location, reason: error.reason)
        }
    }
}

extension PostgresStoreBackend {
    /// Opens `postgres://` and `postgresql://` locations (a password from the URL or
    /// `PGPASSWORD` in `environment`); the lock timeout is at least 10 s, the schema step's.
    public struct Opener: StoreBackendOpener {
        let environment: [String: String]
        let pools: PostgresStorePools
        let logger: Logger

        /// An opener reading connection settings from `environment`, whose stores' pools are
        /// among `pools` (which the caller runs).
        public init(environment: [String: String], pools: PostgresStorePools, logger: Logger = .disabled) {
            self.environment = environment
            self.pools = pools
            self.logger = logger
        }

        public func opens(_ location: String) -> Bool { PostgresStoreURL.isPostgres(location) }

        public func open(_ location: String, lockTimeout: Duration) throws(StoreError) -> any StoreBackend {
            PostgresStoreBackend(
                url: try PostgresStoreURL(location, environment: environment), pools: pools, timeout: max(lockTimeout, .seconds(10)), logger: logger)
        }
    }
}

import Logging
import MultiAuthCore
import MultiAuthStore
import NIOCore
import PostgresNIO
import Synchronization

/// The store's connections: statements and the listener lease one from postgres-nio's pool
/// (`PostgresClient`), the lock opens one of its own (``connect()``). Failures become
/// ``PostgresFailure``s whose reason is the server's SQLSTATE and message, or what the
/// connection did (never a bound value, never the password).
final class PostgresConnections: Sendable {
    let url: PostgresStoreURL
    /// The longest any one connect or statement may take, in seconds.
    let timeout: Double
    let logger: Logger
    private let client: PostgresClient
    private let reached = Mutex(false)

    /// Statements run on `client`, the pool the caller's service group runs.
    init(url: PostgresStoreURL, timeout: Double, logger: Logger, client: PostgresClient) {
        self.url = url
        self.timeout = timeout
        self.logger = logger
        self.client = client
    }

    /// Runs `work` on a connection leased from the pool; waiting for it and the work together
    /// are bounded by ``timeout``.
    func withConnection<T: Sendable>(_ what: String, _ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(PostgresFailure) -> T {
        try await checkReachable()
        let client = client
        return try await bounded(what) {
            try await client.withConnection { connection in
                try await withTaskCancellationHandler { try await work(connection) } onCancel: { connection.closeInBackground() }
            }
        }
    }

    /// Leases a connection for as long as `work` runs, unbounded (the listener's).
    func holdingConnection(_ work: (PostgresConnection) async throws -> Void) async throws {
        try await checkReachable()
        try await client.withConnection { connection in try await work(connection) }
    }

    /// The first use connects once on its own: the pool retries a failing connect for 60 s and
    /// then fails without the cause, where a wrong password or a server that is not there
    /// must be reported at once, with the server's answer.
    private func checkReachable() async throws(PostgresFailure) {
        guard !reached.withLock({ $0 }) else { return }
        let probe = try await connect()
        probe.closeInBackground()
        reached.withLock { $0 = true }
    }

    /// A new connection outside the pool; the caller closes it.
    func connect() async throws(PostgresFailure) -> PostgresConnection {
        let configuration: PostgresConnection.Configuration
        do { configuration = try url.configuration(connectTimeout: timeout) } catch {
            throw PostgresFailure(reason: error.description, sqlState: nil)
        }
        let logger = logger
        do {
            return try await bounded("connecting") { try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger) }
        } catch {
            throw PostgresFailure(reason: "cannot connect to \(url.host):\(url.port): \(error.reason)", sqlState: error.sqlState)
        }
    }

    /// Runs `work`, cancelled after ``timeout`` seconds (or `seconds`). The deadline is the
    /// caller's whole wait: cancelling a statement only asks the server to stop it, and a
    /// server that is stuck, or behind a lock, or never answers the cancel would keep the
    /// caller waiting, so `connection` (the one `work` runs on) is closed at the deadline,
    /// which fails what is in flight on it at once.
    func bounded<T: Sendable>(
        _ what: String, seconds: Double? = nil, closing connection: PostgresConnection? = nil, _ work: @escaping @Sendable () async throws -> T
    ) async throws(PostgresFailure) -> T {
        let limit = seconds ?? timeout
        let outcome = await Deadline.run(for: .clamped(seconds: limit)) { () async -> Result<T, PostgresFailure> in
            do {
                return .success(try await withTaskCancellationHandler(operation: work) { connection?.closeInBackground() })
            } catch {
                return .failure(PostgresFailure(error))
            }
        }
        guard let outcome else { throw PostgresFailure(reason: "\(what) took longer than \(limit.secondsText) s", sqlState: nil) }
        return try outcome.get()
    }
}

/// A failed connect or statement, as a message may quote it.
struct PostgresFailure: Error, Sendable {
    let reason: String
    /// The server's SQLSTATE, when the server answered with an error.
    let sqlState: String?

    init(reason: String, sqlState: String?) {
        self.reason = reason
        self.sqlState = sqlState
    }

    init(_ error: any Error) {
        if let failure = error as? PostgresFailure {
            self = failure
        } else if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState]
            if let message = error.serverInfo?[.message] {
                self.init(reason: "the server answered \(state ?? "?"): \(Redaction.quoted(message))", sqlState: state)
            } else {
                let cause = error.underlying.map { ": \(Redaction.quoted(String(describing: $0)))" } ?? ""
                self.init(reason: "\(error.code)\(cause)", sqlState: nil)
            }
        } else if error is CancellationError {
            self.init(reason: "cancelled", sqlState: nil)
        } else {
            self.init(reason: Redaction.quoted(String(describing: error)), sqlState: nil)
        }
    }

    /// SQLSTATE 42P01: the store's table does not exist (no store was made here).
    var isMissingTable: Bool { sqlState == "42P01" }
    /// SQLSTATE 55P03: a lock was not granted within `lock_timeout`.
    var isLockTimeout: Bool { sqlState == "55P03" }
}

extension PostgresConnection {
    /// Starts closing without waiting (the lock's release, a listener's end). The connection
    /// stays referenced until it is closed: postgres-nio requires that of its connections.
    func closeInBackground() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }
}

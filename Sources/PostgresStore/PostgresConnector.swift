import CredentialStore
import Logging
import MultiAuthCore
import NIOCore
import PostgresNIO

/// Opens connections to a store's database and turns postgres-nio's failures into
/// ``StoreError``s whose reason is the server's SQLSTATE and message, or what the connection
/// did (never a bound value, never the password).
struct PostgresConnector: Sendable {
    let url: PostgresStoreURL
    /// The longest any one connect or statement may take, in seconds.
    let timeout: Double
    let logger: Logger

    /// A new connection; the caller closes it.
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

    /// Runs `work`, cancelled after ``timeout`` seconds. The deadline is the caller's whole
    /// wait: cancelling a statement only asks the server to stop it, and a server that is
    /// stuck, or behind a lock, or never answers the cancel would keep the caller waiting, so
    /// `connection` (the one `work` runs on) is closed at the deadline, which fails what is in
    /// flight on it at once.
    func bounded<T: Sendable>(
        _ what: String, closing connection: PostgresConnection? = nil, _ work: @escaping @Sendable () async throws -> T
    ) async throws(PostgresFailure) -> T {
        let outcome = await Deadline.run(seconds: timeout) { () async -> Result<T, PostgresFailure> in
            do {
                return .success(try await withTaskCancellationHandler(operation: work) { connection?.closeInBackground() })
            } catch {
                return .failure(PostgresFailure(error))
            }
        }
        guard let outcome else { throw PostgresFailure(reason: "\(what) took longer than \(timeout.secondsText) s", sqlState: nil) }
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

import MultiAuthCore
import MultiAuthStore
import PostgresNIO

/// Follows a PostgreSQL store: `LISTEN multiauth_store` on a connection leased for it yields as
/// soon as a write to the store commits anywhere, and `polling` (a version lookup every so
/// often) covers a notification lost while the connection was down. A broken connection is
/// opened again with ``Backoff``, and a yield follows each reconnect, since writes may have
/// happened meanwhile.
enum PostgresChangeListener {
    static func changes(connections: PostgresConnections, storeName: String, polling: AsyncStream<Void>) -> AsyncStream<Void> {
        // Any number of notifications while the caller reloads make one more reload, not one each.
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let poller = Task {
                for await _ in polling { continuation.yield() }
            }
            let listener = Task {
                let retry = Backoff(base: .milliseconds(200), cap: .seconds(10), maxAttempts: .max)
                var failures = 0
                while !Task.isCancelled {
                    do {
                        try await connections.holdingConnection { connection in
                            if failures > 0 { continuation.yield() }
                            failures = 0
                            try await listen(on: connection, for: storeName, continuation)
                        }
                    } catch {
                        connections.logger.debug("store listener lost its connection", metadata: ["store": "\(connections.url.location)"])
                    }
                    failures += 1
                    try? await retry.wait(after: failures)
                }
            }
            continuation.onTermination = { _ in
                poller.cancel()
                listener.cancel()
            }
        }
    }

    /// Listens until the connection breaks or the follower ends; ending closes the connection,
    /// so the pool never lends it on with the channel still listened to.
    private static func listen(on connection: PostgresConnection, for storeName: String, _ continuation: AsyncStream<Void>.Continuation) async throws {
        defer { connection.closeInBackground() }
        try await withTaskCancellationHandler {
            try await connection.listen(on: PostgresStoreBackend.channel) { notifications in
                for try await notification in notifications where notification.payload == storeName { continuation.yield() }
            }
        } onCancel: {
            connection.closeInBackground()
        }
    }
}

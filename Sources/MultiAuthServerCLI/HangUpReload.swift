import Logging
import MultiAuthCLI
import UnixSignals

/// SIGHUP re-reads a server's files while it serves: `reload` builds the new table and
/// swaps it in, and says what it loaded; when it fails, the old table stays and the log
/// says why. Requests in flight and kept-alive connections are untouched.
enum HangUpReload {
    /// Runs `serve` while every SIGHUP calls `reload`; `name` starts the log lines.
    static func whileServing(
        name: String, reload: @escaping @Sendable () async throws -> String, _ serve: () async throws -> Void
    ) async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let listener = Task {
            for await _ in signals {
                do {
                    StandardError.emit("\(name): reloaded, \(try await reload())")
                } catch {
                    StandardError.emit("\(name): reload failed, still serving the previous table: \(error)")
                }
            }
        }
        defer { listener.cancel() }
        try await serve()
    }
}

import Logging
import MultiAuthCLI
import UnixSignals


/// SIGHUP re-reads a server's files while it serves, and so does a change of a watched store:
/// `reload` builds the new table and swaps it in, and says what it loaded; when it fails,
/// the old table stays and the log says why (once per distinct reason, so an outage does not
/// flood it). Requests in flight and kept-alive connections are untouched.
enum HangUpReload {
    /// Runs `serve` while every SIGHUP, and every change `watching` sees, calls `reload`;
    /// `name` starts the log lines.
    static func whileServing(
        name: String, watching changes: AsyncStream<Void>? = nil, reload: @escaping @Sendable () async throws -> String, _ serve: () async throws -> Void
    ) async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let reporter = ReloadReporter(name: name, reload: reload)
        let listener = Task {
            for await _ in signals { await reporter.run(always: true) }
        }
        let poller = Task {
            guard let changes else { return }
            for await _ in changes { await reporter.run(always: false) }
        }
        defer {
            listener.cancel()
            poller.cancel()
        }
        try await serve()
    }
}

/// Runs one reload at a time and logs its outcome: every SIGHUP's, and a watched change's
/// when it differs from the last one logged.
actor ReloadReporter {
    let name: String
    let reload: @Sendable () async throws -> String
    private var lastFailure: String?

    init(name: String, reload: @escaping @Sendable () async throws -> String) {
        self.name = name
        self.reload = reload
    }

    func run(always: Bool) async {
        do {
            let loaded = try await reload()
            lastFailure = nil
            StandardError.emit("\(name): reloaded, \(loaded)")
        } catch {
            let reason = "\(error)"
            if always || reason != lastFailure {
                StandardError.emit("\(name): reload failed, still serving the previous table: \(reason)")
            }
            lastFailure = reason
        }
    }
}

import Logging
import MultiAuthCLI
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGHUP re-reads a server's files while it serves, and so does a change of a watched file:
/// `reload` builds the new table and swaps it in, and says what it loaded; when it fails,
/// the old table stays and the log says why (once per distinct reason, so an outage does not
/// flood it). Requests in flight and kept-alive connections are untouched.
enum HangUpReload {
    /// Runs `serve` while every SIGHUP, and every change `watching` sees, calls `reload`;
    /// `name` starts the log lines.
    static func whileServing(
        name: String, watching: StoreWatch? = nil, reload: @escaping @Sendable () async throws -> String, _ serve: () async throws -> Void
    ) async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let reporter = ReloadReporter(name: name, reload: reload)
        let listener = Task {
            for await _ in signals { await reporter.run(always: true) }
        }
        let poller = Task {
            guard var watch = watching else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int64(watch.interval * 1000)))
                if watch.changed() { await reporter.run(always: false) }
            }
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

/// Whether a file changed since the last look: its size, modification and change times and
/// inode (the store is replaced by rename on every write; a change of mode moves the change
/// time). A stat per look; nothing is read.
struct StoreWatch: Sendable {
    let path: String
    let interval: Double
    private var last: [Int]

    init(path: String, interval: Double) {
        self.path = path
        self.interval = interval
        last = Self.signature(path)
    }

    mutating func changed() -> Bool {
        let now = Self.signature(path)
        defer { last = now }
        return now != last
    }

    private static func signature(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [
            Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec),
            Int(info.st_ino),
        ]
    }
}

package import Foundation
import Testing

/// A `multiauth gateway` (or proxy, or an example service) running for one test: started on a
/// free port, its URL read from the line it prints on standard error once listening, stopped
/// with SIGTERM as a service manager would.
package final class GatewayProcess: @unchecked Sendable {
    private let process = Process()
    private let err = Pipe()
    private let stderr = Collected()
    private let reader = DispatchGroup()
    /// `http://127.0.0.1:PORT`.
    package private(set) var url = ""

    /// What the process wrote on standard error, appended by the reader thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    package init(_ arguments: [String], environment: [String: String] = [:], executable: URL = Paths.multiauth) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] { env[key] = nil }
        process.environment = env.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A blocking read until end of file on a thread of its own, not a readabilityHandler:
        // libdispatch's event loop crashed (SIGSEGV in _dispatch_event_loop_drain) when a
        // handler's pipe was closed as the test ended.
        let handle = err.fileHandleForReading, collected = stderr
        reader.enter()
        DispatchQueue.global().async { [reader] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collected.append(data)
            }
            reader.leave()
        }
        url = try waitForURL()
    }

    deinit {
        // A test that ended without stop(): the process goes, so the reader meets its end of file.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// A line of `/proc/PID/limits` (`Max core file size ...`), or nil once it has exited.
    package func limit(_ name: String) -> String? {
        let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        return text?.split(separator: "\n").first { $0.hasPrefix(name) }.map(String.init)
    }

    /// The process's peak resident memory so far (VmHWM), in KiB.
    package var peakRSSKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// What it printed on standard error so far.
    package var log: String { stderr.text }

    /// True once the log holds `text`; false if it does not within `seconds`. The process
    /// writes a line before the answer it describes, but the pipe reaches us on its own
    /// schedule, so a line about an exchange can arrive after the exchange has ended.
    package func logShows(_ text: String, within seconds: Double = 10) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !log.contains(text) {
            if Date() >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    private func waitForURL() throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // One read of the log: it grows as the process writes, so indices into one read
            // are not valid in the next.
            let text = log
            if let range = text.range(of: "listening on http") {
                let rest = text[text.index(range.upperBound, offsetBy: -4)...]
                if let end = rest.firstIndex(where: { $0 == "," || $0 == "\n" }) { return String(rest[..<end]) }
            }
            guard process.isRunning else { throw GatewayStartFailure(log: log) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw GatewayStartFailure(log: log)
    }

    /// The metrics listener's base URL, once the log names it.
    package func metricsURL() async throws -> String {
        #expect(try await logShows("/metrics and /healthz"))
        let text = log
        let start = try #require(text.range(of: "metrics and health at ")).upperBound
        let url = text[start...].prefix { $0 != " " }  // http://HOST:PORT/metrics
        return String(url.dropLast("/metrics".count))
    }

    /// Sends SIGTERM without waiting for the exit.
    package func signalStop() { process.terminate() }

    /// The process id (signals sent to it reach the server).
    package var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGHUP, say).
    package func send(signal: Int32) { kill(process.processIdentifier, signal) }

    /// Sends SIGTERM and waits (at most 30 s) for the exit status.
    package func stop() -> Int32 {
        process.terminate()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = reader.wait(timeout: .now() + 10)  // the rest of its output, once the pipe's write end is closed
        return process.terminationStatus
    }

    package struct GatewayStartFailure: Error, CustomStringConvertible {
        package let log: String
        package var description: String { "the gateway did not start: \(log)" }
    }
}

package import HTTPTypes
import MultiAuthCore
import MultiAuthNIOBodies
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One JSON object per request, appended to a file (created 0600) or written to standard
/// output, without blocking the event loop: lines are gathered in memory and written by a
/// task on the blocking pool. Past 4 MiB waiting (a disk that stalls), lines are dropped and
/// counted, never allowed to hold up the proxied traffic.
///
/// A line holds the time, the method, the path without its query, the status, the mode and
/// principal the request presented, the bytes sent back and the duration: never a query, a
/// key, a token or a signature.
package final class AccessLog: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }

    private let descriptor: Int32
    private let pending = Mutex(Pending())
    private let wake: AsyncStream<Void>.Continuation
    static let pendingLimit = 4 << 20

    /// A log appended to `path`, or standard output for `-`.
    package init(path: String) throws(AccessLogError) {
        if path == "-" {
            descriptor = STDOUT_FILENO
        } else {
            // Request lines and principals: created 0600, never through a link, never a file
            // another user owns or can read.
            do throws(PathSafetyError) { descriptor = try PathSafety.openForAppending(path) } catch {
                throw AccessLogError(path: path, reason: error.description)
            }
        }
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        Task.detached { [weak self] in
            for await _ in wakes { await self?.flush() }
        }
    }

    deinit {
        wake.finish()
        if descriptor != STDOUT_FILENO { close(descriptor) }
    }

    /// Writes whatever is still waiting, and returns once it is written (at shutdown).
    package func drain() async { await flush() }

    /// Writes what is waiting, on the blocking pool.
    private func flush() async {
        let batch = pending.withLock { state -> Pending in
            defer { state = Pending() }
            return state
        }
        let bytes = batch.bytes + (batch.dropped > 0 ? Array("{\"dropped_lines\":\(batch.dropped)}\n".utf8) : [])
        let descriptor = self.descriptor
        await runOnThreadPool { () -> Result<Void, Never> in
            Self.writeAll(bytes, to: descriptor)
            return .success(())
        }
    }

    /// Queues one line for an exchange; returns at once.
    package func record(
        method: HTTPRequest.Method, path: String, status: Int, mode: String, principal: String, bytes: Int, seconds: Double, at time: Double
    ) {
        let line = JSONValue.object([
            "time": .string(ISOTime.text(time, milliseconds: true)), "method": .string(method.rawValue), "path": .string(path), "status": .number(Double(status)),
            "mode": .string(mode), "principal": .string(principal), "bytes": .number(Double(bytes)),
            "duration_ms": .number((seconds * 1e6).rounded() / 1e3),
        ]).description
        pending.withLock { state in
            if state.bytes.count > Self.pendingLimit {
                state.dropped += 1
            } else {
                state.bytes += Array(line.utf8)
                state.bytes.append(0x0a)
            }
        }
        wake.yield()
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// The access log file cannot be opened.
package struct AccessLogError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    package var description: String { "cannot open the access log \(path): \(reason)" }
}

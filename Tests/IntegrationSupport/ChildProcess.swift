package import Foundation
import Synchronization

/// The one way these tests run a child process to its end: standard input written, and both
/// output pipes read, each on its own thread (a child that fills one pipe never waits on us
/// while we read the other); after `limit` seconds the child is killed, by its own pid and
/// only while it still runs, so a test of a bounded wait fails instead of hanging.
package enum ChildProcess {
    package struct Finished {
        package let status: Int32
        package let stdout: Data
        package let stderr: Data
        /// Seconds from the start to the exit.
        package let seconds: Double
    }

    /// Runs `executable` with `arguments` and `environment` (the whole environment, not
    /// additions). Blocking: call it through ``offPool(_:)``.
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: Data = Data(), limit: Double = 300
    ) throws -> Finished {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        let start = Date()
        try process.run()
        let pid = process.processIdentifier
        let exited = Mutex(false)
        let killer = DispatchWorkItem { exited.withLock { if !$0 { kill(pid, SIGKILL) } } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: killer)
        let group = DispatchGroup()
        let collected = Mutex((stdout: Data(), stderr: Data()))
        let writer = stdin.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            // A child may exit without reading its input: the throwing write reports the broken
            // pipe instead of trapping, as the non-throwing `write(_:)` does.
            try? writer.write(contentsOf: input)
            try? writer.close()
        }
        let errors = err.fileHandleForReading
        DispatchQueue.global().async(group: group) {
            let data = errors.readDataToEndOfFile()
            collected.withLock { $0.stderr = data }
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        // The pid is ours until we have seen the exit; from here on the timer must not fire.
        exited.withLock { $0 = true }
        killer.cancel()
        return collected.withLock {
            Finished(status: process.terminationStatus, stdout: output, stderr: $0.stderr, seconds: Date().timeIntervalSince(start))
        }
    }
}

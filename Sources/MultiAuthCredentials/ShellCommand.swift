public import MultiAuthCore
import Subprocess
import SystemPackage

/// Why a command run for a secret (`credential_process`, a token command) gave none. Never
/// carries the command's output.
public enum ShellCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It could not be started.
    case notStarted
    /// It exited with a status other than 0, or was killed by a signal.
    case failed(status: String)
    /// It printed more than the limit.
    case outputTooLarge(limit: Int)
    /// It did not finish in time; it and everything it started were killed.
    case timedOut(seconds: Double)

    public var description: String {
        switch self {
        case .notStarted: "could not be started"
        case .failed(let status): "ended with \(status)"
        case .outputTooLarge(let limit): "printed more than \(limit / 1024) KiB"
        case .timedOut(let seconds): "did not finish within \(seconds.secondsText) s and was stopped"
        }
    }
}

/// Runs `/bin/sh -c COMMAND` for a secret, the one runner behind `credential_process` and
/// token commands: standard output is kept (at most 1 MiB), standard error is discarded,
/// and the wait is bounded. The command runs in a process group of its own, so at the
/// deadline (or when the caller is cancelled) it is stopped with everything it started
/// (SIGTERM, then SIGKILL 200 ms later). Such a command cannot prompt on the terminal.
package enum ShellCommand {
    /// The most standard output kept.
    package static let outputLimit = 1 << 20

    /// The standard output of `command`, which must exit 0 within `timeout` seconds; it sees
    /// this process's environment with `setting` added.
    package static func output(of command: String, timeout: Double, setting: [String: String] = [:]) async throws(ShellCommandError) -> [UInt8] {
        let outcome = await Deadline.run(for: .clamped(seconds: timeout)) { () async -> Result<[UInt8], ShellCommandError> in
            await run(command, setting: setting)
        }
        guard let outcome else { throw .timedOut(seconds: timeout) }
        return try outcome.get()
    }

    private static func run(_ command: String, setting: [String: String]) async -> Result<[UInt8], ShellCommandError> {
        var added: [Environment.Key: String?] = [:]
        for (name, value) in setting { if let key = Environment.Key(rawValue: name) { added[key] = value } }
        var options = PlatformOptions()
        options.processGroupID = 0
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: .milliseconds(200))]
        do {
            let result = try await Subprocess.run(
                .path("/bin/sh"), arguments: ["-c", command], environment: .inherit.updating(added), platformOptions: options,
                output: .bytes(limit: outputLimit), error: .discarded)
            guard case .exited(0) = result.terminationStatus else { return .failure(.failed(status: "\(result.terminationStatus)")) }
            return .success(result.standardOutput)
        } catch let error as SubprocessError where error.code == .outputLimitExceeded {
            return .failure(.outputTooLarge(limit: outputLimit))
        } catch {
            return .failure(.notStarted)
        }
    }
}

extension ShellCommandError: CodedError {
    /// `ShellCommand.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .notStarted: "ShellCommand.notStarted"
        case .failed: "ShellCommand.failed"
        case .outputTooLarge: "ShellCommand.outputTooLarge"
        case .timedOut: "ShellCommand.timedOut"
        }
    }
}

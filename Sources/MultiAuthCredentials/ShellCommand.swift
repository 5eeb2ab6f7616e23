public import MultiAuthCore
import Subprocess
import SystemPackage

/// Why a command run for a secret (`credential_process`, a token command) gave none. Never
/// carries the command's standard output; a failure names the first lines of its standard
/// error, with what looks like a secret taken out.
public struct ShellCommandError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension ShellCommandError {
    /// It could not be started.
    public static var notStarted: ShellCommandError { ShellCommandError(.notStarted) }
    /// It exited with a status other than 0, or was killed by a signal.
    public static func failed(status: String) -> ShellCommandError { ShellCommandError(.failed(status: status)) }
    /// It printed more than the limit.
    public static func outputTooLarge(limit: Int) -> ShellCommandError {
        ShellCommandError(.outputTooLarge(limit: limit))
    }
    /// It did not finish in time; it and everything it started were killed.
    public static func timedOut(seconds: Double) -> ShellCommandError { ShellCommandError(.timedOut(seconds: seconds)) }
}

extension ShellCommandError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``ShellCommandError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case notStarted
        case failed(status: String)
        case outputTooLarge(limit: Int)
        case timedOut(seconds: Double)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .notStarted: "could not be started"
            case .failed(let status): "ended with \(status)"
            case .outputTooLarge(let limit): "printed more than \(limit / 1024) KiB"
            case .timedOut(let seconds): "did not finish within \(seconds.secondsText) s and was stopped"
            }
        }
    }
}

/// Runs `/bin/sh -c COMMAND` for a secret, the one runner behind `credential_process` and
/// token commands: standard output is kept (at most 1 MiB), standard error only for a
/// failure's message (its first lines, secrets taken out), and the wait is bounded. The command runs in a process group of its own, so at the
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

    /// The standard output of `program` (looked up in `PATH`) run with `arguments` and `input`
    /// on its standard input, which must exit 0 within `timeout` seconds: for a helper that
    /// takes a secret on standard input, never on its command line. A failure's status names
    /// the first lines the program wrote on standard error.
    package static func output(
        ofProgram program: String, _ arguments: [String], input: [UInt8] = [], timeout: Double
    ) async throws(ShellCommandError) -> [UInt8] {
        let outcome = await Deadline.run(for: .clamped(seconds: timeout)) { () async -> Result<[UInt8], ShellCommandError> in
            var options = PlatformOptions()
            options.processGroupID = 0
            options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: .milliseconds(200))]
            do {
                let result = try await Subprocess.run(
                    .name(program), arguments: Arguments(arguments), platformOptions: options, input: .array(input),
                    output: .bytes(limit: outputLimit), error: .bytes(limit: 64 << 10))
                guard case .exited(0) = result.terminationStatus else { return .failure(failed(result.terminationStatus, said: result.standardError)) }
                return .success(result.standardOutput)
            } catch let error as SubprocessError where error.code == .outputLimitExceeded {
                return .failure(.outputTooLarge(limit: outputLimit))
            } catch {
                return .failure(.notStarted)
            }
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
                output: .bytes(limit: outputLimit), error: .bytes(limit: 64 << 10))
            guard case .exited(0) = result.terminationStatus else { return .failure(failed(result.terminationStatus, said: result.standardError)) }
            return .success(result.standardOutput)
        } catch let error as SubprocessError where error.code == .outputLimitExceeded {
            return .failure(.outputTooLarge(limit: outputLimit))
        } catch {
            return .failure(.notStarted)
        }
    }
}

extension ShellCommand {
    /// The failure of a command that ended with `status`, naming what it said on standard
    /// error (``Redaction/said(_:lines:)``), as botocore shows a `credential_process`'s.
    static func failed(_ status: TerminationStatus, said standardError: [UInt8]) -> ShellCommandError {
        let said = Redaction.said(standardError)
        return .failed(status: "\(status)" + (said.isEmpty ? "" : ": " + said))
    }
}

extension ShellCommandError.Kind {
    /// `ShellCommand.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .notStarted: "ShellCommand.notStarted"
        case .failed: "ShellCommand.failed"
        case .outputTooLarge: "ShellCommand.outputTooLarge"
        case .timedOut: "ShellCommand.timedOut"
        }
    }
}

import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import Subprocess
import Synchronization
import SystemPackage
import UnixSignals

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The environment `multiauth exec` gives its child: this process's, less every variable that
/// names another credential source or holds a store passphrase, plus the one source chosen.
struct ChildEnvironment {
    private(set) var values: [String: String]
    let region: String?

    /// Variables removed, so the child's SDK uses the credentials given and nothing else.
    static let removed = [
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_CREDENTIAL_EXPIRATION",
        "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_SESSION_NAME",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE",
        "PGPASSWORD",
    ]

    /// True for a variable the child never sees: the credentials above, a database password,
    /// and every `MULTIAUTH_` variable (store passphrases and key files, API keys, client
    /// secrets: what unlocks MultiAuth's secrets is not the child's to have).
    static func isRemoved(_ name: String) -> Bool { removed.contains(name) || name.hasPrefix("MULTIAUTH_") }

    init(region: String?, base: [String: String] = ProcessInfo.processInfo.environment) {
        values = base.filter { !Self.isRemoved($0.key) }
        self.region = region
        if let region {
            values["AWS_REGION"] = region
            values["AWS_DEFAULT_REGION"] = region
        }
    }

    mutating func setKeys(_ value: ExpiringCredentials) {
        values["AWS_ACCESS_KEY_ID"] = value.credentials.accessKeyId
        values["AWS_SECRET_ACCESS_KEY"] = value.credentials.secretAccessKey
        values["AWS_SESSION_TOKEN"] = value.credentials.sessionToken
        values["AWS_CREDENTIAL_EXPIRATION"] = value.expiration.map { ISOTime.text($0.timeIntervalSince1970) }
    }

    mutating func setContainerEndpoint(url: String, token: String) {
        values["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = url
        values["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = token
        hideSharedFiles()
    }

    mutating func setInstanceMetadataEndpoint(url: String) {
        values["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = url
        values["AWS_EC2_METADATA_DISABLED"] = nil
        hideSharedFiles()
    }

    /// An SDK's chain reads the shared files before a container or instance endpoint, so a
    /// `[default]` profile with keys would win over the profile exec serves. With an endpoint,
    /// the child sees no shared files (its region comes from `AWS_REGION`).
    private mutating func hideSharedFiles() {
        values["AWS_CONFIG_FILE"] = "/dev/null"
        values["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    }
}

/// Runs the program `multiauth exec` was given, with this process's standard input, output
/// and error, passing on the signals a supervisor sends (SIGTERM, SIGHUP, SIGUSR1, SIGUSR2;
/// SIGINT and SIGQUIT when standard input is not a terminal, which sends them to the child
/// itself). Returns its exit status, 128 + N for signal N; 127 when it is not found.
enum ChildProgram {
    static func run(_ command: [String], environment: [String: String]) async throws -> Int32 {
        var trapped: [UnixSignal] = [.sigterm, .sighup, .sigusr1, .sigusr2]
        if isatty(STDIN_FILENO) == 0 { trapped += [.sigint, .sigquit] }
        let signals = await UnixSignalsSequence(trapping: trapped)
        let child = ChildSignals()
        let forwarding = Task {
            for await signal in signals { child.deliver(signal.rawValue) }
        }
        defer { forwarding.cancel() }
        let program: Executable = command[0].contains("/") ? .path(.init(command[0])) : .name(command[0])
        var keys: [Environment.Key: String] = [:]
        for (name, value) in environment { if let key = Environment.Key(rawValue: name) { keys[key] = value } }
        let status: TerminationStatus
        do {
            status = try await Subprocess.run(
                program, arguments: Arguments(Array(command.dropFirst())), environment: .custom(keys), input: .currentStandardInput,
                output: .currentStandardOutput, error: .currentStandardError
            ) { execution in
                child.started(execution.processIdentifier.value)
            }.terminationStatus
        } catch let error as SubprocessError where error.code == .executableNotFound {
            throw CLIError(message: "\(Redaction.quoted(command[0])): program not found", exitCode: 127)
        } catch {
            throw CLIError(message: "\(Redaction.quoted(command[0])) could not be started: \(error)", exitCode: 126)
        }
        switch status {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }
}

/// Signals for the child: passed on at once once it runs; one that arrives between the
/// spawn and the moment its pid is known is held, then passed on (a supervisor's SIGTERM
/// right after start is never lost).
final class ChildSignals: Sendable {
    private struct State {
        var pid: pid_t?
        var held: [Int32] = []
    }

    private let state = Mutex(State())

    func started(_ pid: pid_t) {
        let held = state.withLock { state -> [Int32] in
            state.pid = pid
            defer { state.held = [] }
            return state.held
        }
        for signal in held { kill(pid, signal) }
    }

    func deliver(_ signal: Int32) {
        let pid = state.withLock { state -> pid_t? in
            if state.pid == nil { state.held.append(signal) }
            return state.pid
        }
        if let pid { kill(pid, signal) }
    }
}

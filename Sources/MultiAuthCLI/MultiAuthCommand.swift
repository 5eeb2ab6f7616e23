package import ArgumentParser
import Dispatch
import MultiAuthCore
import MultiAuthCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `multiauth` command: sign and verify AWS-style requests.
package struct MultiAuthCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "multiauth",
        abstract: "Authorize HTTP calls to AWS-style APIs: SigV4 signing, API keys, Cognito and OIDC tokens, an encrypted store, and one AppSync client per auth mode.",
        discussion: ServerCommand.helpSection,
        version: ReleaseVersion.current,
        subcommands: clientCommands + ServerCommand.entries
    )

    /// The commands that run in `multiauth` itself, in the order `--help` lists them.
    package static let clientCommands: [any ParsableCommand.Type] = [
        SignCommand.self, RequestCommand.self, CredentialsCommand.self, ConsoleCommand.self, RolesAnywhereCommand.self, RDSTokenCommand.self, EKSTokenCommand.self, MCPProxyCommand.self, VerifyCommand.self, VectorsCommand.self, StoreCommand.self,
        LoginCommand.self, TokenCommand.self, WhoAmICommand.self, LogoutCommand.self, SSOCommand.self,
    ]

    package init() {}

    /// Parses `arguments`, runs the command, and returns the process exit code.
    ///
    /// Every failure is reported as one line on standard error naming the problem and the
    /// argument it came from; help and version requests print in full and exit 0. The server
    /// and AppSync commands are handed to `multiauth-server` unparsed (``ServerCommand``), and
    /// so is any command whose store is in PostgreSQL (``StoreOptions/namePostgres(_:)``).
    package static func main(arguments: [String]) async -> Int32 {
        if ServerCommand.runsInServer(arguments) || (!StoreOpeners.opensPostgres && StoreOptions.namePostgres(arguments)) {
            do { try ServerCommand.handOver(arguments) } catch { return CommandProcess.report(error) }
        }
        if let first = arguments.first, ServerCommand.describesEveryCommand.contains(first), !StoreOpeners.opensPostgres {
            // multiauth-server knows every command's options; without it, this tree's names do.
            try? ServerCommand.handOver(arguments)
        }
        if let name = arguments.first, commandsOpeningTheStore.contains(name) {
            // The store's first decryption waits for OpenSSL to build its cipher table (0.85 ms,
            // as long as the rest of `token`'s work): build it on the other core while the
            // arguments are parsed.
            CommandProcess.startWarmUp { AESGCM.prepare() }
        }
        return await CommandProcess.run(Self.self) { try parse(arguments) }
    }

    /// Commands that decrypt the credential store as their first real work.
    static let commandsOpeningTheStore: Set<String> = ["token", "whoami", "store", "logout"]

    /// The command `arguments` name. `sign` and `token`, which scripts run once per request,
    /// are parsed first with their own command as the root: argument-parser then reflects
    /// that command alone instead of every command (each first protocol-conformance lookup
    /// scans the whole static binary). Anything that parse refuses (help, a mistake, a
    /// completion-script request) is parsed again from the top, so messages read the same.
    package static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        let direct: [String: any ParsableCommand.Type] = ["sign": SignCommand.self, "token": TokenCommand.self]
        if let name = arguments.first, let command = direct[name], let parsed = try? command.parseAsRoot(Array(arguments.dropFirst())) {
            return parsed
        }
        return try parseAsRoot(StoreCommand.movingSharedOptions(arguments))
    }

    /// The parent that `sign` and `token` name as their "super-command". Parsed as the root,
    /// a command with one skips argument-parser's check for `--generate-completion-script`,
    /// which reflects two commands of its own and was half of `sign`'s start-up instructions.
    /// The flag still works: the direct parse refuses it and the parse from the top handles
    /// it. Under `multiauth` the name is never shown (only a root's super-command is).
    static let directParseParent = "multiauth"

    /// The process entry point.
    package static func runAsProcess() async -> Never {
        CommandProcess.forbidCoreDumps()
        let code = await main(arguments: Array(CommandLine.arguments.dropFirst()))
        CommandProcess.terminate(code)
    }
}

/// Running a parsed command as a process: the exit code and the one-line error report both
/// executables share.
package enum CommandProcess {
    /// Parses with `parse`, runs the command, and returns the exit code; `Root` words the
    /// usage errors and help.
    package static func run<Root: ParsableCommand>(_ root: Root.Type, parse: () throws -> any ParsableCommand) async -> Int32 {
        do {
            var command = try parse()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let error as CLIError {
            return report(error)
        } catch let exit as ExitCode {
            return exit.rawValue  // a status passed on (exec's child), with nothing to report
        } catch {
            let code = Root.exitCode(for: error)
            if code == .success {
                print(Root.fullMessage(for: error))
                return 0
            }
            // argument-parser quotes a refused value as given: its control characters are escaped
            // here, line by line, so a value cannot write to the terminal or forge a line.
            let message = Root.message(for: error).split(separator: "\n", omittingEmptySubsequences: false)
                .map { Redaction.quoted(String($0), limit: 4_096) }.joined(separator: "\n")
            StandardError.emit("multiauth: error: \(message)")
            // Usage errors exit 2, as the store's exit-code contract (and most tools) say.
            return code == .validationFailure ? 2 : code.rawValue
        }
    }

    /// Writes `error` as one line on standard error and returns its exit code.
    package static func report(_ error: CLIError) -> Int32 {
        StandardError.emit("multiauth: error: \(error)")
        return error.exitCode
    }

    /// Ends the process with `code` (`exit` here is the C one), once any warm-up has
    /// finished: `exit` runs OpenSSL's clean-up, which must not free the tables a warm-up
    /// thread is still building (a crash at exit, 1–9% of early failures, before this wait).
    package static func terminate(_ code: Int32) -> Never {
        warmUps.wait()
        exit(code)
    }

    private static let warmUps = DispatchGroup()

    /// Runs `work` on another thread now; ``terminate(_:)`` waits for it.
    package static func startWarmUp(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async(group: warmUps, execute: work)
    }

    /// For a process that may hold secrets in memory: no core file, whatever the shell's
    /// limit (a core would write that memory to disk).
    package static func forbidCoreDumps() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
    }
}

/// Writes whole lines to standard error.
package enum StandardError {
    package static func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

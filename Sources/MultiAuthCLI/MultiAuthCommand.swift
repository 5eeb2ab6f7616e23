import ArgumentParser
import Dispatch
import MultiAuthCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `multiauth` command: sign and verify AWS-style requests.
public struct MultiAuthCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "multiauth",
        abstract: "Authorize HTTP calls to AWS-style APIs: SigV4 signing, API keys, Cognito and OIDC tokens, an encrypted store, and one AppSync client per auth mode.",
        subcommands: [
            SignCommand.self, RequestCommand.self, CredentialsCommand.self, VerifyCommand.self, VectorsCommand.self, StoreCommand.self,
            LoginCommand.self, TokenCommand.self, WhoAmICommand.self, LogoutCommand.self,
            ClientsCommand.self, GraphQLCommand.self, SubscribeCommand.self, ClearCachesCommand.self, RealtimeURLCommand.self,
            EventsCommand.self, GatewayCommand.self, ProxyCommand.self,
        ]
    )

    public init() {}

    /// Parses `arguments`, runs the command, and returns the process exit code.
    ///
    /// Every failure is reported as one line on standard error naming the problem and the
    /// argument it came from; help and version requests print in full and exit 0.
    public static func main(arguments: [String]) async -> Int32 {
        if let name = arguments.first, commandsOpeningTheStore.contains(name) {
            // The store's first decryption waits for OpenSSL to build its cipher table (0.85 ms,
            // as long as the rest of `token`'s work): build it on the other core while the
            // arguments are parsed.
            DispatchQueue.global(qos: .userInitiated).async { AESGCM.prepare() }
        }
        do {
            var command = try parse(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let error as CLIError {
            StandardError.emit("multiauth: error: \(error)")
            return error.exitCode
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                return 0
            }
            StandardError.emit("multiauth: error: \(message(for: error))")
            // Usage errors exit 2, as the store's exit-code contract (and most tools) say.
            return code == .validationFailure ? 2 : code.rawValue
        }
    }

    /// Commands that decrypt the credential store as their first real work.
    static let commandsOpeningTheStore: Set<String> = ["token", "whoami", "store", "logout"]

    /// The command `arguments` name. `sign` and `token`, which scripts run once per request,
    /// are parsed first with their own command as the root: argument-parser then reflects
    /// that command alone instead of every command (each first protocol-conformance lookup
    /// scans the whole static binary). Anything that parse refuses (help, a mistake, a
    /// completion-script request) is parsed again from the top, so messages read the same.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        let direct: [String: any ParsableCommand.Type] = ["sign": SignCommand.self, "token": TokenCommand.self]
        if let name = arguments.first, let command = direct[name], let parsed = try? command.parseAsRoot(Array(arguments.dropFirst())) {
            return parsed
        }
        return try parseAsRoot(StoreCommand.movingSharedOptions(arguments))
    }

    /// The process entry point.
    public static func runAsProcess() async -> Never {
        let code = await main(arguments: Array(CommandLine.arguments.dropFirst()))
        terminateProcess(code)
    }
}

/// Ends the process with `code` (a free function, so `exit` is the C one).
func terminateProcess(_ code: Int32) -> Never {
    exit(code)
}

/// Writes whole lines to standard error.
enum StandardError {
    static func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

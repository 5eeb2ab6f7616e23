import ArgumentParser
import Logging
import MultiAuthAppSync
import MultiAuthCLI
import MultiAuthCore
import MultiAuthLogins
import MultiAuthRealtime

/// `multiauth subscribe`: an AppSync GraphQL subscription over the real-time WebSocket, one
/// JSON line per data message.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: ServerCommand.subscribe.abstract,
        discussion: """
            The connection is kept alive as AppSync's keep-alive says, and replaced after a drop or a \
            silent connection, subscribing again with fresh authorization. Exits 0 after --count \
            messages (without it, runs until interrupted), 1 when the server refuses the subscription \
            or the connection gives up, 28 at --timeout.
            """)
    @OptionGroup var access: ClientAccessOptions
    @Option(help: "The subscription text, or @FILE.") var query: String
    @Option(help: "Variables as a JSON object.") var variables: String?
    @OptionGroup var stream: StreamOptions

    func run() async throws {
        let command = self
        let logins = try await access.logins()
        try await stream.run { try await command.perform(logins) }
    }

    private func perform(_ logins: LoginStore?) async throws {
        let count = stream.count
        let factory = try await access.factory(logins, realtime: RealtimeConnection.Settings(), logger: stream.logger)
        let client = try access.client(factory)
        let text = try ClientAccessOptions.operationText(query)
        var received = 0
        do {
            for try await result in try await client.subscribe(text, variables: try ClientAccessOptions.parsedVariables(variables)) {
                FileHandleless.writeStandardOutput(Array((result.jsonLine + "\n").utf8))
                received += 1
                if let count, received >= count { return }
            }
        } catch let error as AppSyncClientError {
            let usage: Bool = switch error.kind {
            case .notASubscription, .invalidVariables, .noWebSocket: true
            default: false
            }
            throw CLIError(message: error.description, exitCode: usage ? 2 : 1)
        }
        guard count == nil else { throw CLIError(message: "the server ended the subscription after \(received) message(s)", exitCode: 1) }
        StandardError.emit("the server ended the subscription after \(received) message(s)")
    }
}

/// What both subscribing commands take: when to stop, and `-v`.
struct StreamOptions: ParsableArguments {
    @Option(help: "Exit after this many messages (without it, run until interrupted).") var count: Int?
    @Option(help: "Give up after this many seconds (exit 28; 0: no limit).") var timeout: Double = 0
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log the connection's stages (connects, acks, reconnects) to standard error, secrets redacted.")
    var verbose = false

    func validate() throws {
        try ArgumentChecks.seconds(timeout, "--timeout", in: 0...604_800)
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    /// The log for `-v` (warnings only without it).
    var logger: Logger { TraceLog.logger(verbose: verbose) }

    /// Runs `work` within `--timeout`.
    func run(_ work: @escaping @Sendable () async throws -> Void) async throws {
        try await CommandTimeout.run(timeout, what: "the subscription", flag: "--timeout", work)
    }
}

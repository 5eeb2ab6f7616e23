import ArgumentParser
import ClientFactory
import Logins
import MultiAuthCore
import Realtime

/// `multiauth subscribe`: an AppSync GraphQL subscription over the real-time WebSocket, one
/// JSON line per data message.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe through the AppSync client of an entry or auth mode; print each data message as one JSON line.",
        discussion: """
            The connection is kept alive as AppSync's keep-alive says, and replaced after a drop or a \
            silent connection, subscribing again with fresh authorization. Exits 0 after --count \
            messages (without it, runs until interrupted), 1 when the server refuses the subscription \
            or the connection gives up, 28 at --timeout.
            """)
    @OptionGroup var access: ClientAccessOptions
    @Option(help: "The subscription text, or @FILE.") var query: String
    @Option(help: "Variables as a JSON object.") var variables: String?
    @Option(help: "Exit after this many data messages.") var count: Int?
    @Option(help: "Give up after this many seconds (exit 28; 0: no limit).") var timeout: Double = 0
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log the connection's stages (connects, acks, reconnects) to standard error, secrets redacted.")
    var verbose = false

    func validate() throws {
        try ArgumentChecks.seconds(timeout, "--timeout", in: 0...604_800)
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let command = self
        let logins = try access.logins()
        try await CommandTimeout.run(timeout, what: "the subscription", flag: "--timeout") { try await command.perform(logins) }
    }

    private func perform(_ logins: LoginStore?) async throws {
        let factory = try await access.factory(logins, realtime: RealtimeConnection.Settings(), logger: TraceLog.logger(verbose: verbose))
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
            let usage: Bool = switch error {
            case .notASubscription, .invalidVariables, .noWebSocket: true
            default: false
            }
            throw CLIError(message: error.description, exitCode: usage ? 2 : 1)
        }
        guard count == nil else { throw CLIError(message: "the server ended the subscription after \(received) message(s)", exitCode: 1) }
        StandardError.emit("the server ended the subscription after \(received) message(s)")
    }
}

import ArgumentParser
import HTTPTypes
import Logging
import MultiAuthAppSyncEvents
import MultiAuthAuthorization
import MultiAuthCLI
import MultiAuthCore
import MultiAuthForwardingCLI
import MultiAuthRealtime
import MultiAuthWebSocket

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth events`: AppSync Events channels.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: ServerCommand.events.abstract,
        subcommands: [EventsPublishCommand.self, EventsSubscribeCommand.self])
}

/// The Event API and how calls to it are authorized: the flags of `multiauth request`, the
/// service `appsync` unless given, and the region us-east-1 when the endpoint names none.
struct EventsAccessOptions: ParsableArguments {
    @Option(help: "The Event API's HTTP endpoint (https://…/event).") var endpoint: String
    @OptionGroup var authorization: AuthorizationOptions

    var mode: AuthMode {
        switch authorization.auth {
        case .apiKey: .apiKey
        case .iam: .awsIAM
        case .userPools: .amazonCognitoUserPools
        case .oidc: .openIDConnect
        case .lambda, .none: .awsLambda
        }
    }

    /// The client; with a WebSocket connector when `subscribing`.
    func client(subscribing: Bool, logger: Logger) async throws -> EventsClient {
        EventsClient(
            endpoint: endpoint, mode: mode, authorizer: try await authorizer(logger: logger), transport: ServerSenders.commands,
            webSocket: subscribing ? NIOWebSocketConnector() : nil, logger: logger)
    }

    private func authorizer(logger: Logger) async throws -> any RequestAuthorizer {
        if authorization.auth == .none { throw CLIError("--auth", "Event APIs need an auth mode") }
        let host = (try? HTTPRequest(method: .post, wireURL: endpoint))?.wireHost ?? ""
        var scoped = authorization
        scoped.service = scoped.service ?? "appsync"
        scoped.region = scoped.region ?? EndpointInference.regionAndService(host: host)?.region ?? "us-east-1"
        return try await scoped.authorizer(forHost: host, logger: logger)
    }
}

/// `multiauth events publish`: one HTTP publish of 1 to 5 events.
struct EventsPublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: "Publish 1 to 5 JSON events to a channel (HTTP POST …/event); print AppSync's answer.")
    @OptionGroup var access: EventsAccessOptions
    @Option(help: "The channel, /namespace/segment….") var channel: String
    @Argument(help: "The events, each a JSON value.") var events: [String]
    @Option(help: "Time limit in seconds (exit 28).") var maxTime: Double = CommandTimeout.defaultSeconds

    func validate() throws { try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600) }

    func run() async throws {
        let values = try events.enumerated().map { index, text throws -> JSONValue in
            guard let value = try? JSONValue.decode(text) else { throw CLIError("event \(index + 1)", "not JSON") }
            return value
        }
        let command = self
        try await CommandTimeout.run(maxTime, what: "the publish", flag: "--max-time") {
            let client = try await command.access.client(subscribing: false, logger: .disabled)
            let result: PublishResult
            do { result = try await client.publish(channel: command.channel, events: values) } catch let error as EventsError {
                throw CLIError(message: error.description, exitCode: error.isUsage ? 2 : 1)
            }
            let outcome = { (list: [PublishResult.Outcome]) -> JSONValue in
                .array(list.map { .object(["identifier": .string($0.identifier), "index": .number(Double($0.index))]) })
            }
            FileHandleless.writeStandardOutput(Array((JSONValue.object(["successful": outcome(result.successful), "failed": outcome(result.failed)]).description + "\n").utf8))
            if !result.failed.isEmpty { throw CLIError(message: "\(result.failed.count) event(s) were not published", exitCode: 1) }
        }
    }
}

/// `multiauth events subscribe`: one JSON line per event.
struct EventsSubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe to a channel (a final /* matches every channel below it); print each event as one JSON line.")
    @OptionGroup var access: EventsAccessOptions
    @Option(help: "The channel or pattern, /namespace/… or /namespace/*.") var channel: String
    @OptionGroup var stream: StreamOptions

    func run() async throws {
        let command = self
        try await stream.run { try await command.perform() }
    }

    private func perform() async throws {
        let count = stream.count
        let client = try await access.client(subscribing: true, logger: stream.logger)
        var received = 0
        do {
            for try await event in try await client.subscribe(channel: channel) {
                FileHandleless.writeStandardOutput(Array((event.description + "\n").utf8))
                received += 1
                if let count, received >= count { return }
            }
        } catch let error as EventsError { throw CLIError(message: error.description, exitCode: error.isUsage ? 2 : 1) }
        if count != nil { throw CLIError(message: "the server ended the subscription after \(received) event(s)", exitCode: 1) }
    }
}

extension EventsError {
    /// Whether the command line, not the server, was wrong.
    var isUsage: Bool {
        switch self.kind {
        case .invalidChannel, .eventCount, .noWebSocket: true
        default: false
        }
    }
}

import AppSyncEvents
import ArgumentParser
import Authorization
import CredentialProviders
import HTTPTypes
import Logging
import MultiAuthCore
import MultiAuthWebSocket
import Realtime
import TokenProviders

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth events`: AppSync Events channels.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Publish to and subscribe to AppSync Events channels, in any auth mode.",
        subcommands: [EventsPublishCommand.self, EventsSubscribeCommand.self])
}

/// The Event API and how calls to it are authorized.
struct EventsAccessOptions: ParsableArguments {
    @Option(help: "The Event API's HTTP endpoint (https://…/event).") var endpoint: String
    @Option(help: "api-key, iam, user-pools, oidc or lambda.") var auth: AuthorizationOptions.Auth
    @Option(help: "The API key (else MULTIAUTH_API_KEY).") var apiKey: String?
    @Option(help: "The token for user-pools, oidc or lambda.") var token: String?
    @Option(help: "Use the saved login NAME (see 'multiauth login') for user-pools or oidc.") var name: String?
    @OptionGroup var store: StoreOptions
    @Option(help: "The shared-file profile for IAM credentials.") var profile: String?
    @Option(help: "Signing region (inferred for appsync-api hosts, else us-east-1).") var region: String?

    var mode: AuthMode {
        switch auth {
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
            endpoint: endpoint, mode: mode, authorizer: try await authorizer(logger: logger), transport: CommandTimeout.transport(),
            webSocket: subscribing ? NIOWebSocketConnector() : nil, logger: logger)
    }

    private func authorizer(logger: Logger) async throws -> any RequestAuthorizer {
        switch auth {
        case .none: throw CLIError("--auth", "Event APIs need an auth mode")
        case .apiKey:
            guard let key = apiKey ?? ProcessInfo.processInfo.environment["MULTIAUTH_API_KEY"], !key.isEmpty else {
                throw CLIError("--api-key", "required for --auth api-key (or set MULTIAUTH_API_KEY)")
            }
            return APIKeyAuthorizer(key: .fixed(key))
        case .userPools, .oidc, .lambda:
            if let token { return TokenAuthorizer(token: .fixed(token)) }
            guard let name else { throw CLIError("--token", "required for --auth \(auth.rawValue) (or give --name)") }
            var login = LoginOptions()
            login.name = name
            login.store = store
            let (_, provider) = try await login.provider()
            return TokenAuthorizer(token: .token(from: provider, kind: .id))
        case .iam:
            let host = (try? HTTPRequest(method: .post, wireURL: endpoint))?.wireHost ?? ""
            let region = region ?? EndpointInference.regionAndService(host: host)?.region ?? "us-east-1"
            let credentials = DefaultCredentialsChain.make(profile: profile, http: CommandTimeout.transport())
            return IAMAuthorizer(credentials: credentials, region: region, service: "appsync", logger: logger)
        }
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
        switch self {
        case .invalidChannel, .eventCount, .noWebSocket: true
        default: false
        }
    }
}

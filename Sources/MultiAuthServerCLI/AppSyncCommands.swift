public import ArgumentParser
import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthForwardingCLI
import MultiAuthLogins
import MultiAuthRealtime
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The options that pick an `awsconfiguration.json` and where its caches live.
struct ConfigOptions: ParsableArguments {
    @Option(help: "The awsconfiguration.json file.") var config: String
    @Option(help: "The cache folder (default: $XDG_CACHE_HOME/multiauth/appsync).") var cacheDir: String?
    @Flag(help: "Name databases queries.db etc. without the entry's ClientDatabasePrefix.") var noDatabasePrefix = false

    func load() throws -> AWSConfiguration {
        do { return try AWSConfiguration.load(path: config) } catch { throw CLIError(message: error.description, exitCode: 2) }
    }
}

/// `multiauth clients`: the clients a configuration defines, with their databases and problems.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: ServerCommand.clients.abstract)
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let configuration = try options.load()
        let factory = ClientFactory(configuration: configuration, cacheDirectory: options.cacheDir, useClientDatabasePrefix: !options.noDatabasePrefix, http: ServerSenders.commands)
        var lines = ["ENTRY\tMODE\tURL\tPREFIX\tDATABASES"]
        for entry in configuration.appSync {
            let prefix = factory.useClientDatabasePrefix ? (entry.clientDatabasePrefix ?? entry.name) : "-"
            lines.append("\(entry.name)\t\(entry.authMode.rawValue)\t\(entry.apiURL)\t\(prefix)\t\(factory.databasePaths(for: entry).joined(separator: ","))")
        }
        for problem in configuration.problems { lines.append("problem: \(problem)") }
        FileHandleless.writeStandardOutput(Array((lines.joined(separator: "\n") + "\n").utf8))
        if !configuration.problems.isEmpty { throw CLIError(message: "\(configuration.problems.count) problem(s) in \(options.config)", exitCode: 2) }
    }
}

/// `multiauth graphql`: one query or mutation through the client of an entry or mode.
struct GraphQLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graphql", abstract: ServerCommand.graphql.abstract)
    @OptionGroup var access: ClientAccessOptions
    @Option(help: "The operation text, or @FILE.") var query: String?
    @Flag(help: "Send the client's queued offline mutations, in order, and say how many went (also done before every mutation).")
    var replay = false
    @Option(help: "Variables as a JSON object.") var variables: String?
    @Option(help: "returnCacheDataElseFetch (default), fetchIgnoringCacheData, returnCacheDataDontFetch, returnCacheDataAndFetch.")
    var cachePolicy: CachePolicy = .returnCacheDataElseFetch
    @Flag(help: "Fail a mutation at once on a network error instead of queueing it offline.") var noOfflineQueue = false
    @Option(help: "Time limit in seconds for the whole command, retries and the queue replay included; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds

    func validate() throws { try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600) }

    func run() async throws {
        let command = self
        let logins = try await access.logins()  // a passphrase prompt is not timed
        try await CommandTimeout.run(maxTime, what: "the GraphQL call", flag: "--max-time") { try await command.perform(logins) }
    }

    private func perform(_ logins: LoginStore?) async throws {
        let appSync = try access.client(try await access.factory(logins))
        if replay {
            do {
                let sent = try await appSync.replayOfflineMutations()
                StandardError.emit("replayed \(sent) queued mutation(s); \(try await appSync.pendingMutationCount()) still queued")
            } catch { throw CLIError(message: error.description, exitCode: 1) }
        }
        guard let query else {
            if replay { return }
            throw CLIError(message: "give --query (or --replay)", exitCode: 2)
        }
        let text = try ClientAccessOptions.operationText(query)
        let parsedVariables = try ClientAccessOptions.parsedVariables(variables)
        do {
            if OperationKind.of(text) == .mutation {
                switch try await appSync.mutate(text, variables: parsedVariables, queueWhenOffline: !noOfflineQueue) {
                case .completed(let result): print(result)
                case .queued(let id): StandardError.emit("offline: mutation queued as #\(id) in \(appSync.databases.offlineMutationsPath)")
                }
            } else {
                let response = try await appSync.query(text, variables: parsedVariables, cachePolicy: cachePolicy)
                if response.source == .cache { StandardError.emit("(from the cache: \(appSync.databases.queriesPath))") }
                FileHandleless.writeStandardOutput(response.json + [0x0a])
            }
        } catch { throw CLIError(message: error.description, exitCode: Self.exitCode(for: error)) }
    }

    /// 28 for a timeout, as `request` says; 1 for anything else.
    static func exitCode(for error: AppSyncClientError) -> Int32 {
        guard case .request(_, _, let failure) = error.kind else { return 1 }
        return CurlExitCode.of(failure) == 28 ? 28 : 1
    }

    private func print(_ result: GraphQLResult) {
        FileHandleless.writeStandardOutput(Array((result.jsonLine + "\n").utf8))
    }
}

extension GraphQLResult {
    /// `{"data": …}`, with `errors` (message, type, path) when there are any, as one line.
    var jsonLine: String {
        var members: [String: JSONValue] = ["data": data ?? .null]
        if !errors.isEmpty {
            members["errors"] = .array(errors.map { error in
                .object(["message": .string(error.message), "errorType": error.errorType.map { .string($0) } ?? .null, "path": .array(error.path ?? [])])
            })
        }
        return JSONValue.object(members).description
    }
}

/// `multiauth clear-caches`: empty the caches of every entry or one.
struct ClearCachesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-caches", abstract: ServerCommand.clearCaches.abstract)
    @OptionGroup var options: ConfigOptions
    @Option(help: "Only this entry.") var client: String?
    @Flag(help: "The query caches.") var queries = false
    @Flag(help: "The offline mutation queues.") var mutations = false
    @Flag(help: "The subscription metadata.") var subscriptions = false

    func run() async throws {
        var selected: ClientDatabases.ClearOptions = []
        if queries { selected.insert(.queries) }
        if mutations { selected.insert(.mutations) }
        if subscriptions { selected.insert(.subscriptions) }
        let factory = ClientFactory(configuration: try options.load(), cacheDirectory: options.cacheDir, useClientDatabasePrefix: !options.noDatabasePrefix, http: ServerSenders.commands)
        let errors = await factory.clearCaches(entry: client, options: selected.isEmpty ? .all : selected)
        for error in errors { StandardError.emit("multiauth: error: \(error)") }
        if !errors.isEmpty { throw CLIError(message: "\(errors.count) cache(s) could not be cleared", exitCode: 1) }
    }
}

/// `multiauth realtime-url`: the websocket connection URL of an entry's client.
struct RealtimeURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realtime-url", abstract: ServerCommand.realtimeURL.abstract)
    @OptionGroup var graphql: RealtimeOptions

    func run() async throws {
        let factory = ClientFactory(
            configuration: try graphql.options.load(), cacheDirectory: graphql.options.cacheDir, http: ServerSenders.commands,
            credentials: graphql.profile.map { DefaultCredentialsChain.make(profile: $0, http: ServerSenders.commands) },
            tokenProviders: graphql.token.map { token in
                Dictionary(uniqueKeysWithValues: [AuthMode.amazonCognitoUserPools, .openIDConnect, .awsLambda].map { ($0, StaticTokenProvider.fixed(token)) })
            } ?? [:])
        do {
            let client = try factory.client(named: graphql.client)
            FileHandleless.writeStandardOutput(Array((try await RealtimeHandshake.connectionURL(for: client) + "\n").utf8))
        } catch let error as ClientFactoryError { throw CLIError(message: error.description, exitCode: 2) } catch let error as RealtimeError {
            throw CLIError(message: error.description, exitCode: 1)
        }
    }
}

struct RealtimeOptions: ParsableArguments {
    @OptionGroup var options: ConfigOptions
    @Option(help: "The AppSync entry.") var client: String
    @Option(help: "The token for user-pool, OIDC or Lambda entries.") var token: String?
    @Option(help: "The shared-file profile for IAM credentials.") var profile: String?
}

extension AuthMode: ExpressibleByArgument {}
extension CachePolicy: ExpressibleByArgument {}

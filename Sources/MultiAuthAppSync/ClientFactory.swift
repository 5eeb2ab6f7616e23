// awsconfiguration.json's model is part of this module's API: `import MultiAuthAppSync` keeps bringing it.
public import Logging
import MultiAuthAuthorization
@_exported import MultiAuthClientConfiguration
public import MultiAuthCore
public import MultiAuthCredentials
public import MultiAuthHTTP
public import MultiAuthRealtime
public import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a client could not be built.
public struct ClientFactoryError: CodedError, Sendable {
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

extension ClientFactoryError {
    /// The configuration is wrong.
    public static func configuration(_ value: ConfigurationError) -> ClientFactoryError {
        ClientFactoryError(.configuration(value))
    }
    /// The databases cannot be used.
    public static func cache(_ value: CacheError) -> ClientFactoryError { ClientFactoryError(.cache(value)) }
    /// The entry's mode needs something the factory was not given.
    public static func missingProvider(entry: String, mode: AuthMode, need: String) -> ClientFactoryError {
        ClientFactoryError(.missingProvider(entry: entry, mode: mode, need: need))
    }
}

extension ClientFactoryError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``ClientFactoryError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case configuration(ConfigurationError)
        case cache(CacheError)
        case missingProvider(entry: String, mode: AuthMode, need: String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .configuration(let error): error
            case .cache(let error): error
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .configuration(let error): error.description
            case .cache(let error): error.description
            case .missingProvider(let entry, let mode, let need): "client '\(entry)' (\(mode.rawValue)) needs \(need)"
            }
        }
    }
}

/// Builds one ``AppSyncClient`` per `AppSync` entry of `awsconfiguration.json`, each with the
/// authorizer of its mode and its own databases, so answers that differ by authorization
/// never mix.
///
/// ```swift
/// let factory = ClientFactory(configuration: try AWSConfiguration.load(path: "awsconfiguration.json"), http: CurlHTTPClient())
/// let `private` = try factory.client(for: .awsIAM)
/// let `public` = try factory.client(for: .apiKey)
/// ```
public struct ClientFactory: Sendable {
    /// The configuration.
    public let configuration: AWSConfiguration
    /// Where the databases go.
    public let cacheDirectory: String
    /// Name databases `<prefix>_queries.db` (true) or `queries.db` (false), as the SDK's
    /// `useClientDatabasePrefix` does.
    public let useClientDatabasePrefix: Bool
    let http: any HTTPSender
    let credentials: (any CredentialsProvider)?
    let tokenProviders: [AuthMode: any TokenProvider]
    let apiKey: String?
    let webSocket: (any WebSocketConnector)?
    let realtimeSettings: RealtimeConnection.Settings
    let logger: Logger

    /// - Parameters:
    ///   - configuration: the parsed `awsconfiguration.json`.
    ///   - cacheDirectory: where the SQLite databases go (default: the current folder).
    ///   - useClientDatabasePrefix: name each client's databases after its `ClientDatabasePrefix`.
    ///   - http: the transport for queries, mutations and credential calls (`CurlHTTPClient()`,
    ///     or `AsyncHTTPClientSender` in a process already on SwiftNIO).
    ///   - credentials: for `AWS_IAM` (default: Cognito Identity when the file configures an
    ///     identity pool, else the default chain).
    ///   - tokenProviders: for `AMAZON_COGNITO_USER_POOLS`, `OPENID_CONNECT` and `AWS_LAMBDA`.
    ///   - apiKey: replaces the entries' `ApiKey`.
    ///   - webSocket: opens the clients' real-time sockets (`NIOWebSocketConnector` from the
    ///     `MultiAuthWebSocket` product); without one, ``AppSyncClient/subscribe(_:variables:)`` throws.
    ///   - realtimeSettings: the real-time waits (acknowledgement, keep-alive, reconnect backoff).
    ///   - logger: passed to every client (cache hits and misses, queued mutations), its
    ///     authorizer and sender (signing stages, retries, re-signing) and the credentials.
    public init(
        configuration: AWSConfiguration, cacheDirectory: String? = nil, useClientDatabasePrefix: Bool = true,
        http: any HTTPSender, credentials: (any CredentialsProvider)? = nil,
        tokenProviders: [AuthMode: any TokenProvider] = [:], apiKey: String? = nil, webSocket: (any WebSocketConnector)? = nil,
        realtimeSettings: RealtimeConnection.Settings = RealtimeConnection.Settings(), logger: Logger = .disabled
    ) {
        self.logger = logger
        self.configuration = configuration
        self.cacheDirectory = cacheDirectory ?? Self.defaultCacheDirectory
        self.useClientDatabasePrefix = useClientDatabasePrefix
        self.http = http
        self.credentials = credentials
        self.tokenProviders = tokenProviders
        self.apiKey = apiKey
        self.webSocket = webSocket
        self.realtimeSettings = realtimeSettings
    }

    /// `$XDG_CACHE_HOME/multiauth/appsync`, else `~/.cache/multiauth/appsync`.
    public static var defaultCacheDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? ".") + "/.cache"
        return base + "/multiauth/appsync"
    }

    /// The client for the entry `name`.
    public func client(named name: String) throws(ClientFactoryError) -> AppSyncClient {
        let entry: AppSyncEntry
        do { entry = try configuration.entry(named: name) } catch { throw .configuration(error) }
        return try makeClient(entry)
    }

    /// The client for the only entry with `mode`.
    public func client(for mode: AuthMode) throws(ClientFactoryError) -> AppSyncClient {
        let entry: AppSyncEntry
        do { entry = try configuration.entry(for: mode) } catch { throw .configuration(error) }
        return try makeClient(entry)
    }

    /// The client an app-level key maps to, e.g. `[.public: "Default_API_KEY", .private: "Default_AWS_IAM"]`.
    public func client<Key: Hashable & CustomStringConvertible>(_ key: Key, in mapping: [Key: String]) throws(ClientFactoryError) -> AppSyncClient {
        guard let name = mapping[key] else { throw .configuration(.noSuchClient(file: configuration.file, what: "key '\(key)'")) }
        return try client(named: name)
    }

    /// The database files an entry uses.
    public func databasePaths(for entry: AppSyncEntry) -> [String] {
        ClientDatabases.fileNames(prefix: prefix(for: entry)).map { cacheDirectory + "/" + $0 }
    }

    func prefix(for entry: AppSyncEntry) -> String? {
        useClientDatabasePrefix ? (entry.clientDatabasePrefix ?? entry.name) : nil
    }

    private func makeClient(_ entry: AppSyncEntry) throws(ClientFactoryError) -> AppSyncClient {
        let authorizer = try authorizer(for: entry)
        let registration: CacheRegistry.Registration
        do {
            registration = try CacheRegistry.shared.claim(databasePaths(for: entry)[0], url: entry.apiURL, mode: entry.authMode.rawValue)
        } catch { throw .cache(error) }
        let databases: ClientDatabases
        do { databases = try ClientDatabases.open(directory: cacheDirectory, prefix: prefix(for: entry), entry: entry.name) } catch {
            registration.release()
            throw .cache(error)
        }
        return AppSyncClient(
            entry: entry, databases: databases, transport: http, authorizer: authorizer, registration: registration, webSocket: webSocket,
            realtimeSettings: realtimeSettings, logger: logger)
    }

    func authorizer(for entry: AppSyncEntry) throws(ClientFactoryError) -> any RequestAuthorizer {
        switch entry.authMode {
        case .apiKey:
            guard let key = apiKey ?? entry.apiKey else { throw .missingProvider(entry: entry.name, mode: .apiKey, need: "an ApiKey") }
            return APIKeyAuthorizer(key: .fixed(key))
        case .awsIAM:
            return IAMAuthorizer(credentials: try iamCredentials(), region: entry.region, service: "appsync", logger: logger)
        case .amazonCognitoUserPools, .openIDConnect, .awsLambda:
            guard let provider = tokenProviders[entry.authMode] else {
                throw .missingProvider(entry: entry.name, mode: entry.authMode, need: "a token provider")
            }
            return TokenAuthorizer(token: .token(from: provider, kind: .id))
        }
    }

    private func iamCredentials() throws(ClientFactoryError) -> any CredentialsProvider {
        if let credentials { return credentials }
        if let pool = configuration.identityPool {
            let identity: CognitoIdentityCredentialsProvider
            do { identity = try CognitoIdentityCredentialsProvider(identityPoolId: pool.poolId, region: pool.region, http: http) } catch {
                throw .configuration(.invalid(file: configuration.file, path: "CredentialsProvider.CognitoIdentity.Default.Region", problem: error.description))
            }
            return CachingCredentialsProvider(identity, logger: logger)
        }
        return DefaultCredentialsChain.make(http: http, logger: logger)
    }

    /// Empties the chosen caches of every entry (or just `name`), including prefixes left by
    /// another user or environment; returns the per-cache errors.
    public func clearCaches(entry name: String? = nil, options: ClientDatabases.ClearOptions = .all) async -> [CacheError] {
        var errors: [CacheError] = []
        for entry in configuration.appSync where name == nil || entry.name == name {
            do {
                let databases = try ClientDatabases.open(directory: cacheDirectory, prefix: prefix(for: entry), entry: entry.name)
                errors += await databases.clear(options, entry: entry.name)
            } catch { errors.append(error) }
        }
        return errors
    }
}

extension ClientFactoryError.Kind {
    /// `ClientFactory.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .configuration: "ClientFactory.configuration"
        case .cache: "ClientFactory.cache"
        case .missingProvider: "ClientFactory.missingProvider"
        }
    }
}

import ArgumentParser
import Logging
import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCLI
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthForwardingCLI
import MultiAuthLogins
import MultiAuthRealtime
import MultiAuthTokens
import MultiAuthWebSocket

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `graphql` and `subscribe` pick an AppSync client and what authorizes it.
struct ClientAccessOptions: ParsableArguments {
    @OptionGroup var options: ConfigOptions
    @Option(help: "The AppSync entry to use.") var client: String?
    @Option(help: "The auth mode whose (only) entry to use: API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA.")
    var mode: AuthMode?
    @Option(help: "The token for user-pool, OIDC or Lambda entries, or @FILE to read it from a file.") var token: String?
    @Option(help: "A saved login (see 'multiauth login') for user-pool or OIDC entries.") var name: String?
    @OptionGroup var store: StoreOptions
    @Option(help: "Replace the entry's API key, or @FILE to read it from a file.") var apiKey: String?
    @Option(help: "The shared-file profile for IAM credentials.") var profile: String?

    var loginOptions: LoginOptions {
        var login = LoginOptions()
        login.name = name ?? "default"
        login.store = store
        return login
    }

    /// The login store when `--name` asks for a saved login (opened before any time limit: it may prompt).
    func logins() async throws -> LoginStore? {
        guard name != nil else { return nil }
        return try await loginOptions.logins()
    }

    /// The factory with this command's credentials, tokens and API key; with a WebSocket connector when `realtime`.
    func factory(_ logins: LoginStore?, realtime: RealtimeConnection.Settings? = nil, logger: Logger = .disabled) async throws -> ClientFactory {
        var providers: [AuthMode: any TokenProvider] = [:]
        if let token {
            let fixed = StaticTokenProvider.fixed(try CommandLineSecret.value(token, flag: "--token", alternative: nil))
            for mode in [AuthMode.amazonCognitoUserPools, .openIDConnect, .awsLambda] { providers[mode] = fixed }
        } else if name != nil {
            let (record, provider) = try await loginOptions.provider(in: logins)
            providers[record.authMode] = provider
        }
        let credentials: (any CredentialsProvider)? = profile.map { DefaultCredentialsChain.make(profile: $0, http: ServerSenders.commands) }
        return ClientFactory(
            configuration: try options.load(), cacheDirectory: options.cacheDir, useClientDatabasePrefix: !options.noDatabasePrefix,
            http: ServerSenders.commands, credentials: credentials, tokenProviders: providers,
            apiKey: try apiKey.map { try CommandLineSecret.value($0, flag: "--api-key", alternative: nil) },
            webSocket: realtime.map { _ in NIOWebSocketConnector() }, realtimeSettings: realtime ?? RealtimeConnection.Settings(),
            logger: logger)
    }

    /// The client `--client` or `--mode` names.
    func client(_ factory: ClientFactory) throws -> AppSyncClient {
        do {
            if let client { return try factory.client(named: client) }
            if let mode { return try factory.client(for: mode) }
        } catch { throw CLIError(message: error.description, exitCode: 2) }
        throw CLIError(message: "give --client NAME or --mode MODE", exitCode: 2)
    }

    /// The text of `--query` (`@FILE` reads the file).
    static func operationText(_ query: String) throws -> String {
        guard query.hasPrefix("@") else { return query }
        guard let data = FileManager.default.contents(atPath: String(query.dropFirst())) else {
            throw CLIError(message: "--query: cannot read \(query.dropFirst())", exitCode: 2)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `--variables` as JSON.
    static func parsedVariables(_ text: String?) throws -> JSONValue? {
        try text.map { value throws -> JSONValue in
            guard let parsed = try? JSONValue.decode(value) else { throw CLIError(message: "--variables: not JSON", exitCode: 2) }
            return parsed
        }
    }
}

extension LoginRecord {
    /// The AppSync mode this login's tokens authorize.
    var authMode: AuthMode {
        switch provider {
        case .cognito: .amazonCognitoUserPools
        case .oidc: .openIDConnect
        }
    }
}

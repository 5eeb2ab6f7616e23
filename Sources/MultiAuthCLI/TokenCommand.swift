import ArgumentParser
import MultiAuthCore
import MultiAuthCurl
import MultiAuthLogins
import MultiAuthTokens

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

/// `multiauth token`: print a valid token of a saved login, refreshing it first if needed.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", _superCommandName: MultiAuthCommand.directParseParent,
        abstract: "Print a valid token of a saved login (refreshed first when it is about to expire), a Bedrock API key, or an AWS web identity token.",
        subcommands: [BedrockTokenCommand.self, WebIdentityTokenCommand.self])
    @Option(help: "id or access; without it, the ID token where the login has one, else the access token (named on standard error).")
    var type: AuthTokens.Kind?
    @Option(help: "Time limit in seconds for the whole command, a refresh and store waits included; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds
    @Option(help: "Refresh first when the token expires within this many seconds (default 120).") var minValidity: Int64 = 120
    @OptionGroup var login: LoginOptions

    func validate() throws {
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600)
        try ArgumentChecks.count(Int(minValidity), "--min-validity", in: 0...86_400)
    }

    func run() async throws {
        let (login, type, margin) = (self.login, self.type, self.minValidity)
        let logins = try await login.logins()  // a passphrase prompt is not timed
        let token = try await CommandTimeout.run(maxTime, what: "getting a token of login '\(login.name)'", flag: "--max-time") {
            let (_, provider) = try await login.provider(refreshMargin: margin, in: logins)
            return try await login.run { () async throws(TokenError) in
                let tokens = try await provider.currentTokens()
                let kind = type ?? (tokens.idToken == nil ? .access : .id)
                return (try tokens.token(kind), kind)
            }
        }
        if type == nil { StandardError.emit("multiauth: printing the \(token.1 == .id ? "ID" : "access") token of login '\(login.name)'") }
        FileHandleless.writeStandardOutput(Array((token.0 + "\n").utf8))
    }

    /// `2024-03-05T09:04:03Z`.
    static func isoTime(_ unixTime: Int64) -> String { ISOTime.text(Double(unixTime)) }
}

/// `multiauth whoami`: the saved login's claims and expiry, never a token.
struct WhoAmICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show a saved login's provider, claims and expiry (never its tokens).")
    @OptionGroup var login: LoginOptions

    func run() async throws {
        let record = try await login.logins().load(name: login.name)
        var lines: [String] = []
        switch record.provider {
        case .cognito(let configuration): lines.append("provider: cognito \(configuration.userPoolId) client \(configuration.clientId) (\(configuration.region))")
        case .oidc(let configuration): lines.append("provider: oidc \(configuration.issuer) client \(configuration.clientId)")
        }
        lines.append("flow: \(record.flow)")
        let kind: AuthTokens.Kind = record.tokens.idToken == nil ? .access : .id
        if let claims = try? record.tokens.claims(of: kind) {
            lines.append("user: \(claims.displayName ?? "(none)")")
            lines.append("claims (\(kind.rawValue) token): \(claims)")
        } else {
            lines.append("claims: the \(kind.rawValue) token is not a JWT")
        }
        lines.append("expires: \(TokenCommand.isoTime(record.tokens.expiresAt))")
        lines.append("refresh token: \(record.tokens.refreshToken == nil ? "none" : "present")")
        FileHandleless.writeStandardOutput(Array((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// `multiauth logout`: revoke where the provider allows it, then remove the login.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Revoke a saved login where possible and remove it from the store.")
    @Flag(help: "For a Cognito login: also make the pool forget this device (ForgetDevice) and remove it from the store.")
    var forgetDevice = false
    @OptionGroup var login: LoginOptions

    func run() async throws {
        let logins = try await login.logins()
        let record = try await login.run { () async throws(TokenError) in try await logins.load(name: login.name) }
        if forgetDevice, case .cognito(let configuration) = record.provider {
            let authenticator = CognitoUserPoolAuthenticator(configuration: configuration, http: CommandTimeout.transport())
            let devices = StoredCognitoDevices(store: logins.store, configuration: configuration)
            let (_, provider) = try await login.provider(in: logins)
            let forgotten = try await login.run { () async throws(TokenError) -> String? in
                try await authenticator.forgetDevice(tokens: try await provider.currentTokens(), devices: devices)
            }
            StandardError.emit(forgotten.map { "The pool forgot device \($0)." } ?? "The login names no tracked device.")
        }
        do {
            let revoked = try await record.revoke(http: CommandTimeout.transport())
            StandardError.emit(revoked ? "Revoked the tokens of login '\(login.name)'." : "The provider offers no revocation; the tokens stay valid until they expire.")
        } catch {
            StandardError.emit("multiauth: warning: revocation failed (\(error)); removing the login anyway")
        }
        try await login.run { () async throws(TokenError) in try await logins.remove(name: login.name) }
        StandardError.emit("Removed login '\(login.name)'.")
    }
}

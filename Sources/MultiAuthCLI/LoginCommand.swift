public import ArgumentParser
import MultiAuthClientConfiguration
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthCurl
package import MultiAuthLogins
import MultiAuthStore
package import MultiAuthTokens
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth login cognito|oidc`: sign in and keep the tokens in the credential store.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a Cognito user pool or an OpenID Connect provider (tokens kept in the store), to IAM Identity Center (the AWS CLI's SSO cache), or through a SAML identity provider.",
        subcommands: [Cognito.self, OIDC.self, SSO.self, AWS.self, SAML.self]
    )

    struct Cognito: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cognito", abstract: "Sign in to a Cognito user pool (SRP or password).")
        @Option(help: "An awsconfiguration.json whose CognitoUserPool section gives the pool, client, secret, region and endpoint (flags override it).")
        var config: String?
        @Option(help: "The user pool id (REGION_ID).") var userPoolId: String?
        @Option(help: "The app client id.") var clientId: String?
        @Option(help: "The app client secret, if the client has one, or @FILE to read it from a file (else MULTIAUTH_CLIENT_SECRET).")
        var clientSecret: String?
        @Option(help: "The pool's region (default: from the pool id).", transform: regionArgument) var region: String?
        @Option(help: "The Cognito endpoint (default: https://cognito-idp.REGION.amazonaws.com/).") var endpoint: String?
        @Option(help: "The user name, email or other alias.") var username: String
        @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false
        @Flag(help: "If a new password is required, read it from the next line of standard input.") var newPasswordStdin = false
        @Option(help: "srp (default), password, custom (CUSTOM_AUTH) or user-auth (choice-based: see --challenge).")
        var flow: CognitoUserPoolAuthenticator.Flow = .srp
        @Option(
            name: [.customLong("challenge"), .customLong("preferred-challenge")],
            help: "For --flow user-auth: password, password-srp, email-otp, sms-otp or web-authn (a passkey); else the pool offers a choice.")
        var preferredChallenge: CognitoFirstFactorArgument?
        @Flag(help: "Sign a new user up without a password (give --user-attribute email=...), confirm with the code sent, and sign in.")
        var signUp = false
        @Option(help: "An attribute of the user signing up, NAME=VALUE (email=alice@example.com); repeat for more.")
        var userAttribute: [String] = []
        @Flag(help: "After signing in, register a passkey on the security key (--authenticator) for later sign-ins with --challenge web-authn.")
        var registerPasskey = false
        @OptionGroup var passkeys: PasskeyArguments
        @Option(help: "The answer to a custom challenge; repeat for later rounds, in order.") var customAnswer: [String] = []
        @Option(help: "A command whose standard output answers a custom challenge, run each round with its parameters in MULTIAUTH_CHALLENGE_<NAME>.")
        var customAnswerCommand: String?
        @Option(help: "The one-time code for the MFA challenge (TOTP, SMS or email), or for TOTP set-up.") var mfaCode: String?
        @Option(help: "A command whose standard output is the MFA code, run when a code is needed (like aws-vault's mfa_process).")
        var mfaCodeCommand: String?
        @Option(help: "Which MFA to use when the pool lets the user choose: totp, sms or email.") var mfaType: MFAType?
        @Flag(help: """
            At TOTP set-up, keep the secret in the store and make the codes from it, now and in later sign-ins of this login, \
            with no authenticator app. Anyone who can open the store then passes MFA: use it only for unattended accounts.
            """)
        var storeTOTPSecret = false
        @Flag(help: """
            When the pool offers to track this device, confirm it and keep its key and password in the store: later sign-ins \
            prove the device (DEVICE_SRP_AUTH) and the pool may skip MFA. A device already kept is always used.
            """)
        var rememberDevice = false
        @OptionGroup var login: LoginOptions

        enum MFAType: String, ExpressibleByArgument, CaseIterable {
            case totp, sms, email
            var kind: CognitoMFAKind {
                switch self {
                case .totp: .totp
                case .sms: .sms
                case .email: .email
                }
            }
        }

        func run() async throws {
            let section = try config.map { path in
                let file = try ConfigurationFile.load(path)
                return try file.cognitoSignIn ?? Self.noSection(file)
            }
            guard let userPoolId = userPoolId ?? section?.userPoolId, let clientId = clientId ?? section?.clientId else {
                throw CLIError(message: "give --user-pool-id and --client-id, or --config with a CognitoUserPool section", exitCode: 2)
            }
            let configuration = try CognitoUserPoolConfiguration(
                userPoolId: userPoolId, clientId: clientId,
                clientSecret: try clientSecret.map { try CommandLineSecret.value($0, flag: "--client-secret", alternative: "MULTIAUTH_CLIENT_SECRET") } ?? LoginOptions.environmentSecret ?? section?.clientSecret,
                region: region ?? section?.region, endpoint: endpoint ?? (region == nil ? section?.endpoint : nil))
            var lines = passwordStdin || newPasswordStdin ? StandardInputLines() : nil
            // A code or a custom challenge can be the whole sign-in: then no password is asked.
            let passwordless = signUp || flow == .custom || (flow == .userAuth && [.emailOTP, .smsOTP, .webAuthn].contains(preferredChallenge))
            let attributes = try Self.attributes(userAttribute)
            var password: [UInt8] = []
            if lines != nil {
                password = try lines?.next("--password-stdin") ?? []
            } else if !passwordless {
                password = try Self.prompt("Password for \(username): ")
            }
            defer { SecureMemory.zero(&password) }
            let newPassword: [UInt8]? = newPasswordStdin ? try lines?.next("--new-password-stdin") : nil
            let logins = try await login.logins()
            let kept = try await login.run { () async throws(TokenError) -> TOTPGenerator? in
                try await TOTPSecrets(store: logins.store).generator(name: login.name, configuration: configuration)
            }
            let answers = CognitoChallengeAnswers(
                mfaCode: mfaCode, mfaCodeCommand: mfaCodeCommand, mfaType: mfaType?.kind, keptTOTP: kept, storeTOTPSecret: storeTOTPSecret,
                customAnswers: customAnswer, customAnswerCommand: customAnswerCommand, passkeys: passkeys
            ) { (user: String) async throws(TokenError) -> [UInt8] in
                if let newPassword { return newPassword }
                guard let typed = TerminalPrompt.readSecret("New password for \(user): ") else { throw .newPasswordRequired(username: user) }
                return typed
            }
            let authenticator = CognitoUserPoolAuthenticator(configuration: configuration, http: CommandTimeout.transport())
            let (username, flow, preferred) = (self.username, self.flow, self.preferredChallenge?.factor)
            let devices = StoredCognitoDevices(store: logins.store, configuration: configuration)
            let signUp = self.signUp
            let signIn = try await login.run { () async throws(TokenError) -> CognitoSignIn in
                if signUp { return try await authenticator.signUpAndSignIn(username: username, attributes: attributes, responder: answers) }
                return try await authenticator.signIn(
                    username: username, password: password, flow: flow, preferred: preferred, responder: answers, devices: devices)
            }
            let tokens = signIn.tokens
            if rememberDevice, let offered = signIn.newDevice {
                let device = try await login.run { () async throws(TokenError) -> CognitoRememberedDevice in
                    try await authenticator.rememberDevice(offered, tokens: tokens, userId: signIn.userId, name: "multiauth", devices: devices)
                }
                StandardError.emit("This device is remembered as \(device.deviceKey); later sign-ins prove it and may skip MFA.")
            }
            if let secret = answers.setUpSecret.withLock({ $0 }) {
                try await login.run { () async throws(TokenError) in
                    try await TOTPSecrets(store: logins.store).save(secret, name: login.name, configuration: configuration)
                }
                StandardError.emit("The TOTP secret is kept in the store for login '\(login.name)'.")
            }
            try await login.save(LoginRecord(provider: .cognito(configuration), flow: flow.rawValue, tokens: tokens), in: logins)
            // After the save: a passkey that cannot be made does not cost the sign-in.
            if registerPasskey {
                let client = passkeys.client()
                StandardError.emit("Touch your security key to make a passkey.")
                try await login.run { () async throws(TokenError) in try await authenticator.registerPasskey(tokens: tokens, client: client) }
                StandardError.emit("A passkey is registered; sign in with it with --flow user-auth --challenge web-authn.")
            }
        }

        /// `--user-attribute NAME=VALUE`s as a table.
        private static func attributes(_ arguments: [String]) throws -> [String: String] {
            var table: [String: String] = [:]
            for argument in arguments {
                let parts = argument.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty else { throw CLIError(message: "--user-attribute: '\(argument)' is not NAME=VALUE", exitCode: 2) }
                table[String(parts[0])] = String(parts[1])
            }
            return table
        }

        /// The section's own problem when it has one (a bad region, a missing key), else that it is absent.
        private static func noSection(_ file: AWSConfiguration) throws -> CognitoUserPoolConfiguration {
            if let problem = file.problems.first(where: { "\($0)".contains("CognitoUserPool") }) { throw CLIError("--config", problem) }
            throw CLIError("--config", "\(file.file) has no CognitoUserPool section")
        }

        private static func prompt(_ text: String) throws -> [UInt8] {
            guard let typed = TerminalPrompt.readSecret(text) else {
                throw CLIError(message: "no password: give --password-stdin or run in a terminal", exitCode: 2)
            }
            return typed
        }
    }

    struct OIDC: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "oidc", abstract: "Sign in with OpenID Connect (PKCE in a browser, device code, or client credentials).")
        enum Flow: String, ExpressibleByArgument, CaseIterable {
            case pkce, device, clientCredentials = "client-credentials"
        }
        @Option(help: "An awsconfiguration.json whose OIDC section gives the issuer, client and secret (flags override it).")
        var config: String?
        @Option(help: "The issuer URL (discovery reads ISSUER/.well-known/openid-configuration).") var issuer: String?
        @Option(help: "The client id.") var clientId: String?
        @Option(help: "The client secret, for confidential clients, or @FILE to read it from a file (else MULTIAUTH_CLIENT_SECRET).")
        var clientSecret: String?
        @Option(help: "pkce (default), device or client-credentials.") var flow: Flow = .pkce
        @Option(help: "Scopes, space-separated.") var scope: String = "openid profile email offline_access"
        @Option(help: "Time limit in seconds for the whole sign-in, the browser or device approval included; exit 28 when it passes.")
        var timeout: Int = 300
        @Option(help: "The loopback port for the PKCE redirect (default: any free port).") var redirectPort: UInt16 = 0
        @OptionGroup var login: LoginOptions

        func run() async throws {
            let section = try config.map { file in
                guard let section = try ConfigurationFile.load(file).openIDConnectSignIn else {
                    throw CLIError("--config", "\(file) has no OIDC section")
                }
                return section
            }
            guard let issuer = issuer ?? section?.issuer, let clientId = clientId ?? section?.clientId else {
                throw CLIError(message: "give --issuer and --client-id, or --config with an OIDC section", exitCode: 2)
            }
            let configuration = OIDCConfiguration(
                issuer: issuer, clientId: clientId, clientSecret: try clientSecret.map { try CommandLineSecret.value($0, flag: "--client-secret", alternative: "MULTIAUTH_CLIENT_SECRET") } ?? LoginOptions.environmentSecret ?? section?.clientSecret,
                scope: scope)
            let (login, flow, timeout, redirectPort) = (self.login, self.flow, self.timeout, self.redirectPort)
            // A second more than --timeout, so the flows' own timeouts (which say what they waited for) speak first.
            let tokens = try await CommandTimeout.run(Double(timeout) + 1, what: "signing in to \(Redaction.url(issuer))", flag: "--timeout") {
                try await login.run { () async throws(TokenError) -> AuthTokens in
                let client = try await OpenIDConnectClient.discover(configuration, http: CommandTimeout.transport())
                switch flow {
                case .clientCredentials: return try await client.clientCredentials()
                case .device: return try await Self.device(client)
                case .pkce:
                    let redirect = try LoopbackRedirectServer(port: redirectPort)
                    return try await client.authorizationCode(redirect: redirect, timeout: .seconds(timeout)) { url in
                        StandardError.emit("Open this URL in a browser to sign in:\n\(url)")
                        await BrowserLauncher.open(url)
                    }
                }
                }
            }
            try await login.save(LoginRecord(provider: .oidc(configuration), flow: flow.rawValue, tokens: tokens))
        }

        private static func device(_ client: OpenIDConnectClient) async throws(TokenError) -> AuthTokens {
            let authorization = try await client.startDeviceAuthorization()
            StandardError.emit("To sign in, visit \(authorization.verificationURI) and enter the code \(authorization.userCode)")
            if let complete = authorization.verificationURIComplete { StandardError.emit("(or open \(complete))") }
            return try await client.pollDeviceToken(authorization)
        }
    }
}

/// The options every login-related command shares: the store and the login's name.
package struct LoginOptions: ParsableArguments {
    package init() {}

    @Option(help: "The name the login is kept under.") package var name: String = "default"
    @OptionGroup package var store: StoreOptions

    package static var environmentSecret: String? {
        guard let value = ProcessInfo.processInfo.environment["MULTIAUTH_CLIENT_SECRET"], !value.isEmpty else { return nil }
        return value
    }

    /// Runs a token operation, turning its error into a one-line CLI error.
    package func run<T: Sendable>(_ body: () async throws(TokenError) -> T) async throws -> T {
        do { return try await body() } catch { throw CLIError(message: error.messageWithHint, exitCode: error.exitCode) }
    }

    /// Opens the store's logins.
    package func logins() async throws -> LoginStore {
        LoginStore(store: try await StoreOptions.reportingErrors { try await store.open() })
    }

    /// Saves a new login and says so on standard error (never printing a token).
    package func save(_ record: LoginRecord, in opened: LoginStore? = nil) async throws {
        let logins = if let opened { opened } else { try await logins() }
        try await run { () async throws(TokenError) in try await logins.save(record, name: name) }
        let who = (try? record.tokens.claims(of: record.tokens.idToken == nil ? .access : .id))?.displayName ?? "the client"
        StandardError.emit("Logged in as \(who) (login '\(name)', expires \(TokenCommand.isoTime(record.tokens.expiresAt))).")
    }

    /// The saved login `name` as a refreshing provider.
    /// `logins`, when given, is the store already opened (its passphrase asked for before a
    /// time limit starts: a prompt is not a wait for a server).
    package func provider(refreshMargin: Int64 = 120, in opened: LoginStore? = nil) async throws -> (LoginRecord, RefreshingTokenProvider) {
        let logins = if let opened { opened } else { try await logins() }
        let record = try await run { () async throws(TokenError) in try await logins.load(name: name) }
        return (record, logins.provider(
            for: record, name: name, http: CommandTimeout.transport(), refreshMargin: .seconds(refreshMargin), logger: TraceLog.logger(verbose: false)))
    }
}

extension TokenError {
    /// Exit codes of the login commands: 3 refused, 4 log in again, 5 the provider failed,
    /// 6 a token is invalid, 7 unreachable, 28 timed out, 130 cancelled, 1 otherwise.
    var exitCode: Int32 {
        switch self.kind {
        case .notAuthorized, .userNotFound, .passwordResetRequired, .userNotConfirmed, .accessDenied, .newPasswordRequired, .codeMismatch: 3
        case .challengeNeedsInput: 2
        case .loginRequired, .deviceCodeExpired, .codeExpired: 4
        case .malformedResponse, .service, .tooManyRequests, .invalidParameter, .unsupportedChallenge: 5
        case .invalidToken, .stateMismatch: 6
        case .unreachable: 7
        case .timedOut: 28
        case .storage, .local, .passkey: 1
        case .cancelled: 130
        }
    }
}

/// Lines of standard input, read once.
struct StandardInputLines {
    private var lines: [[UInt8]]

    init() {
        var all = FileHandleless.readStandardInput()
        lines = all.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0.filter { $0 != 0x0d }) }
        SecureMemory.zero(&all)
    }

    mutating func next(_ option: String) throws -> [UInt8] {
        guard !lines.isEmpty, !lines[0].isEmpty else { throw CLIError(message: "\(option): standard input has no line for it", exitCode: 2) }
        return lines.removeFirst()
    }
}

extension AuthTokens.Kind: ExpressibleByArgument {}
extension CognitoUserPoolAuthenticator.Flow: ExpressibleByArgument {}

/// Reads an `awsconfiguration.json` for the login commands.
enum ConfigurationFile {
    static func load(_ path: String) throws -> AWSConfiguration {
        do { return try AWSConfiguration.load(path: path) } catch { throw CLIError("--config", error) }
    }
}

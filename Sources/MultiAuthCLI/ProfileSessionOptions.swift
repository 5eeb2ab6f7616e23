import ArgumentParser
import Logging
import MultiAuthCachedSessions
import MultiAuthCore
import MultiAuthSigV4
package import MultiAuthCredentials
package import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a command that uses the default chain gets an MFA code for a profile's `mfa_serial`,
/// and whether the sessions it obtains are kept in the store (`--store`, unlocked without a
/// prompt by `--key-file`, `MULTIAUTH_STORE_KEY_FILE`, `--passphrase-file` or
/// `MULTIAUTH_STORE_PASSPHRASE`).
package struct ProfileSessionOptions: ParsableArguments {
    package init() {}

    @Option(help: "The current code of the profile's MFA device (mfa_serial), when a new session needs one.")
    var mfaCode: String?
    @Option(help: "A command that prints the MFA code (as aws-vault's mfa_process), run only when a new session needs one.")
    var mfaCodeCommand: String?
    @Flag(help: "Keep no sessions in the store (and do not warn that none are kept).") var noSessionCache = false

    package func validate() throws {
        if mfaCode != nil, mfaCodeCommand != nil { throw CLIError("--mfa-code", "give --mfa-code or --mfa-code-command, not both") }
    }

    /// The default chain (from `profile`, if given) with these options.
    package func chain(profile: String?, store: StoreOptions) -> CachingCredentialsProvider {
        let logger = TraceLog.logger(verbose: false)
        return DefaultCredentialsChain.make(
            profile: profile, http: CommandTimeout.transport(), mfaCode: mfaSource, sessionCache: sessionCache(store, logger: logger),
            ssoSignIn: Self.ssoSignIn, logger: logger)
    }

    /// With a browser to open, an expired SSO login is renewed by the command that needs it
    /// (once for every process that needs it at the same time), as `login sso` would.
    static var ssoSignIn: SSOSignIn? {
        guard BrowserLauncher.isAvailable else { return nil }
        return SSOSignIn { @Sendable configuration async throws(CredentialsError) in
            let login = try SSODeviceLogin(configuration: configuration, environment: ProcessInfo.processInfo.environment, http: CommandTimeout.transport())
            _ = try await login.run { prompt in
                StandardError.emit("To sign in again, visit \(Redaction.quoted(prompt.verificationURI)) and enter the code \(Redaction.quoted(prompt.userCode))")
                if let complete = prompt.verificationURIComplete { await BrowserLauncher.open(complete) }
            }
        }
    }

    private var mfaSource: MFACodeSource {
        if let mfaCode { return .fixed(mfaCode) }
        if let mfaCodeCommand { return .command(mfaCodeCommand) }
        return MFACodeSource { serial, profile throws(CredentialsError) in
            let typed = await runBlocking { Result<[UInt8]?, Never>.success(TerminalPrompt.readSecret("MFA code for \(serial): ")) }
            guard let typed else {
                throw .mfaCodeUnavailable(
                    profile: profile, serial: serial, problem: "a new session needs an MFA code: give --mfa-code or --mfa-code-command, or run in a terminal")
            }
            return String(decoding: typed, as: UTF8.self).trimmedWhitespace
        }
    }

    private func sessionCache(_ options: StoreOptions, logger: Logger) -> (any SessionCache)? {
        noSessionCache ? nil : StoreOpenedOnFirstUse(options: options, logger: logger)
    }
}

/// The session cache of the store the options name, opened when a profile first needs a
/// session (a remote store or a KMS key costs a round trip, which a profile with plain keys
/// never pays); without a usable store, sessions are obtained uncached, with one warning.
struct StoreOpenedOnFirstUse: SessionCache {
    let options: StoreOptions
    let logger: Logger

    func session(
        for key: SessionKey, obtain: () async throws(CredentialsError) -> ExpiringCredentials
    ) async throws(CredentialsError) -> ExpiringCredentials {
        switch await options.openedWithoutPrompt() {
        case .success(let store): return try await StoreSessionCache(store: store, logger: logger).session(for: key, obtain: obtain)
        case .failure(let reason): return try await UncachedSessions(reason: reason.description, logger: logger).session(for: key, obtain: obtain)
        }
    }

    /// The SAML session `name`; when it is spent and a browser can be opened, one process signs
    /// in again (``SAMLSessions``) and the others wait for its session.
    func signedInSession(named name: String, profile: String) async throws(CredentialsError) -> ExpiringCredentials {
        switch await options.openedWithoutPrompt() {
        case .success(let store):
            let renewal: SAMLSessions.Renewal? = BrowserLauncher.isAvailable ? { @Sendable settings async throws(CredentialsError) in
                try await SAMLSignIn(timeout: SAMLSignIn.renewalTimeout, openBrowser: true).renew(settings)
            } : nil
            return try await StoreSessionCache(store: store, logger: logger, renewSAML: renewal).signedInSession(named: name, profile: profile)
        case .failure(let reason):
            throw .incompleteProfile(profile: profile, problem: "saml_session \(name) is kept in the credential store: \(reason)")
        }
    }
}

extension StoreOptions {
    /// Why the store cannot be opened without a prompt.
    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// The store, when it exists and a key file, passphrase or KMS key is given without a prompt.
    package func openedWithoutPrompt() async -> Result<CredentialStore, Unavailable> {
        if isFile, !FileManager.default.fileExists(atPath: storePath) { return .failure(.init(description: "no store at \(storePath)")) }
        let environment = ProcessInfo.processInfo.environment
        let promptless = kmsKeyId != nil || resolvedKeyFile != nil || passphraseFile != nil || environment["MULTIAUTH_STORE_PASSPHRASE"] != nil
        guard promptless else {
            let location = (try? backend().location) ?? storePath
            return .failure(.init(description: "the store \(location) needs a key without a prompt (--key-file, MULTIAUTH_STORE_KEY_FILE, --passphrase-file, MULTIAUTH_STORE_PASSPHRASE or --kms-key-id)"))
        }
        do { return .success(try await open()) } catch { return .failure(.init(description: "\(error)")) }
    }
}

/// Credentials and the region from the default chain, for the commands that use them.
package enum ChainCredentials {
    /// The credentials of `chain` within `maxTime` seconds: exit 28 when the time passes, 9
    /// when a session needs an MFA code and none could be had. Shared by the commands that
    /// use the chain's credentials.
    package static func resolve(_ chain: some CredentialsProvider, maxTime: Double) async throws -> ExpiringCredentials {
        do {
            return try await CommandTimeout.run(maxTime, what: "resolving credentials", flag: "--max-time") {
                try await chain.credentials()
            }
        } catch let error as CredentialsError {
            let exitCode: Int32 = switch error.kind {
            case .timedOut: 28
            case .mfaCodeUnavailable: 9
            case .certificate(let certificate) where certificate.code == X509IdentityError.passphraseRequired("").code: 8
            default: 1
            }
            throw CLIError(message: error.description, exitCode: exitCode)
        }
    }

    /// `given` (`--region`), else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`,
    /// then the instance's (IMDS).
    package static func region(_ given: String?, profile: String?) async throws -> String? {
        if let given { return given }
        do { return try await SharedConfigFiles.resolvedRegion(profile: profile, http: CommandTimeout.transport()) } catch { throw CLIError(message: error.description) }
    }
}

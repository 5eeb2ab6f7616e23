import ArgumentParser
import CachedSessions
import CredentialProviders
import CredentialStore
import Logging
import MultiAuthCore

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
            logger: logger)
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
        if noSessionCache { return nil }
        switch options.openedWithoutPrompt() {
        case .success(let store): return StoreSessionCache(store: store, logger: logger)
        case .failure(let reason): return UncachedSessions(reason: reason.description, logger: logger)
        }
    }
}

extension StoreOptions {
    /// Why the store cannot be opened without a prompt.
    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// The store, when it exists and a key file or passphrase is given without a prompt.
    package func openedWithoutPrompt() -> Result<CredentialStore, Unavailable> {
        if kmsKeyId != nil { return .failure(.init(description: "a store keyed by KMS does not keep sessions yet")) }
        guard FileManager.default.fileExists(atPath: storePath) else { return .failure(.init(description: "no store at \(storePath)")) }
        let environment = ProcessInfo.processInfo.environment
        let source: StoreKeySource
        if let keyFile = resolvedKeyFile {
            source = .keyFile(path: keyFile)
        } else if passphraseFile != nil || environment["MULTIAUTH_STORE_PASSPHRASE"] != nil {
            do {
                source = .passphrase(
                    try PassphraseSource.read(file: passphraseFile, environmentVariable: "MULTIAUTH_STORE_PASSPHRASE", prompt: "", confirm: false))
            } catch { return .failure(.init(description: "\(error)")) }
        } else {
            return .failure(.init(description: "the store \(storePath) needs a key without a prompt (--key-file, MULTIAUTH_STORE_KEY_FILE, --passphrase-file or MULTIAUTH_STORE_PASSPHRASE)"))
        }
        return .success(CredentialStore(path: storePath, keySource: source, lockTimeout: lockTimeout))
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
            let exitCode: Int32 = switch error {
            case .timedOut: 28
            case .mfaCodeUnavailable: 9
            default: 1
            }
            throw CLIError(message: error.description, exitCode: exitCode)
        }
    }

    /// `given` (`--region`), else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`,
    /// then the instance's (IMDS).
    package static func region(_ given: String?, profile: String?) async throws -> String? {
        if let given { return given }
        do { return try await SharedConfigFiles.resolvedRegion(profile: profile) } catch { throw CLIError(message: error.description) }
    }
}

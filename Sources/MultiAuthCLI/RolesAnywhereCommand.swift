package import ArgumentParser
import MultiAuthCore
import MultiAuthCrypto
package import MultiAuthCredentials
import MultiAuthPKCS11
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth rolesanywhere`: IAM Roles Anywhere credentials from an X.509 certificate, with
/// `aws_signing_helper`'s subcommands and flag names, so only the program in a
/// `credential_process` line changes.
package struct RolesAnywhereCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "rolesanywhere",
        abstract: "IAM Roles Anywhere credentials from an X.509 certificate, as aws_signing_helper gives them, with sessions cached in the store.",
        subcommands: [RolesAnywhereCredentialProcessCommand.self, RolesAnywhereUpdateCommand.self, RolesAnywhereServeEntry.self])
}

/// `multiauth rolesanywhere credential-process`: the credential_process JSON.
package struct RolesAnywhereCredentialProcessCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "credential-process",
        abstract: "Print the credential_process JSON of a Roles Anywhere session (secret and token included).",
        discussion: "credential_process = multiauth rolesanywhere credential-process --certificate C --private-key K --trust-anchor-arn T --profile-arn P --role-arn R")
    @OptionGroup var options: RolesAnywhereOptions

    package func run() async throws {
        let session = try await ChainCredentials.resolve(try await options.provider(), maxTime: options.maxTime)
        FileHandleless.writeStandardOutput(try CredentialsCommand.processJSON(session) + [0x0a])
    }
}

/// What every `rolesanywhere` subcommand takes: `aws_signing_helper`'s flags, and the store
/// its sessions are kept in.
package struct RolesAnywhereOptions: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp("The certificate (PEM, the leaf first; any further certificates are its chain), a PKCS#12 bundle holding the key too, or a pkcs11: URI of a certificate in a token." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var certificate: String
    @Option(help: ArgumentHelp("The private key (PEM: PKCS#1, SEC1, PKCS#8 or encrypted PKCS#8), or a pkcs11: URI (RFC 7512; the PIN from its pin-value or pin-source, else MULTIAUTH_PKCS11_PIN); not with a PKCS#12 bundle." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var privateKey: String?
    @Option(help: "The PKCS#11 module for pkcs11: URIs (default: the URI's module-path, else p11-kit's proxy, which loads the system's registered modules).")
    var pkcs11Lib: String?
    @Option(help: ArgumentHelp("Intermediate certificates (PEM), sent as X-Amz-X509-Chain." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var intermediates: String?
    @Option(help: "The trust anchor's ARN (its region is the default region).") var trustAnchorArn: String
    @Option(help: "The Roles Anywhere profile's ARN.") var profileArn: String
    @Option(help: "The IAM role's ARN.") package var roleArn: String
    @Option(help: "The region called (default: the trust anchor's).", transform: regionArgument) var region: String?
    @Option(help: "The service's URL or host (default: AWS_ENDPOINT_URL_ROLESANYWHERE, then rolesanywhere.REGION.amazonaws.com).") var endpoint: String?
    @Option(help: "The session's length in seconds (900 to 43200).") var sessionDuration: Int = 3600
    @Option(help: "The session's name, when the profile accepts one.") var roleSessionName: String?
    @Option(help: ArgumentHelp("Read the private key's or bundle's passphrase from this file (default: MULTIAUTH_PRIVATE_KEY_PASSPHRASE, else a prompt)." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var privateKeyPassphraseFile: String?
    @Option(help: "Time limit in seconds for obtaining the session; exit 28 when it passes.") package var maxTime: Double = CommandTimeout.defaultSeconds
    @Flag(help: "Keep no sessions in the store (each run makes a CreateSession call).") var noSessionCache = false
    @OptionGroup var store: StoreOptions

    package func validate() throws {
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600)
        guard (900...43_200).contains(sessionDuration) else { throw CLIError("--session-duration", "must be 900 to 43200 seconds") }
    }

    /// The provider these options describe, its sessions kept in the store unless
    /// `--no-session-cache`.
    package func provider() async throws -> RolesAnywhereCredentialsProvider {
        let settings = RolesAnywhereCredentialsProvider.Settings(
            trustAnchorArn: trustAnchorArn, profileArn: profileArn, roleArn: roleArn, region: region, endpoint: endpoint,
            sessionDuration: sessionDuration, roleSessionName: roleSessionName)
        let logger = TraceLog.logger(verbose: false)
        let cache: (any SessionCache)? = noSessionCache ? nil : StoreOpenedOnFirstUse(options: store, logger: logger)
        do {
            // The key is read (or the token opened) only when a session must be obtained: a
            // cached session costs no key parsing, passphrase or token access.
            let id = try certificateID()
            let options = self
            return try RolesAnywhereCredentialsProvider(
                certificateID: id,
                loadingIdentity: { () async throws(X509IdentityError) in
                    do { return try await options.identity() } catch let error as X509IdentityError { throw error } catch let error as CLIError {
                        // No passphrase could be had: said as the key's fault, so the command exits 8.
                        if error.exitCode == 8 { throw .passphraseRequired("the private key (--private-key-passphrase-file or MULTIAUTH_PRIVATE_KEY_PASSPHRASE)") }
                        throw .loadFailed(error.description)
                    } catch { throw .loadFailed("\(error)") }
                }, settings: settings, http: CommandTimeout.transport(), sessionCache: cache)
        } catch let error as CredentialsError { throw CLIError(message: error.description) }
    }

    /// What a cached session is kept for: the certificate file's SHA-256 (or its token URI),
    /// the key's file or URI, and the module (never a URI's PIN): a renewed certificate or
    /// another key gets a new session.
    private func certificateID() throws -> String {
        let certificatePart = certificate.hasPrefix("pkcs11:")
            ? "certificate \(String(certificate.prefix { $0 != "?" }))"
            : "certificate sha256 \(SHA256Hasher.hash(try Self.read(certificate, "--certificate")).hex)"
        let keyPart = privateKey.map { String($0.prefix { $0 != "?" }) } ?? "in the bundle"
        return "\(certificatePart), key \(keyPart), module \(pkcs11Lib ?? "default")"
    }

    /// The certificate and key, a passphrase asked for only when the key is encrypted.
    func identity() async throws -> X509SigningIdentity {
        if let privateKey, privateKey.hasPrefix("pkcs11:") { return try await tokenIdentity(privateKey) }
        let certificateBytes = try Self.read(certificate, "--certificate")
        let isBundle = !certificateBytes.starts(with: Array("-----".utf8)) && !String(decoding: certificateBytes.prefix(4096), as: UTF8.self).contains("-----BEGIN")
        if !isBundle, privateKey == nil { throw CLIError("--private-key", "required unless --certificate is a PKCS#12 bundle") }
        if isBundle, privateKey != nil { throw CLIError("--private-key", "not with a PKCS#12 bundle, which holds the key") }
        let chain = try intermediates.map { try Self.read($0, "--intermediates") }
        let key = try privateKey.map { try Self.read($0, "--private-key") }
        func load(_ passphrase: [UInt8]?) throws(X509IdentityError) -> X509SigningIdentity {
            if let key { return try .pem(certificate: certificateBytes, privateKey: key, intermediates: chain, passphrase: passphrase) }
            return try .pkcs12(certificateBytes, passphrase: passphrase ?? [], intermediates: chain)
        }
        do { return try load(nil) } catch {
            // A bundle with a passphrase fails its integrity check with the empty one.
            guard error.kind.isPassphraseRequired || (isBundle && error.kind.isWrongPassphrase) else { throw CLIError(message: error.description) }
        }
        var passphrase = try PassphraseSource.read(
            file: privateKeyPassphraseFile, environmentVariable: "MULTIAUTH_PRIVATE_KEY_PASSPHRASE", prompt: "Passphrase for the private key: ",
            confirm: false)
        defer { SecureMemory.zero(&passphrase) }
        do { return try load(passphrase) } catch { throw CLIError(message: error.description) }
    }

    /// A key kept in a PKCS#11 token; the certificate from a file, or from the token when
    /// `--certificate` is a pkcs11: URI too.
    func tokenIdentity(_ keyURI: String) async throws -> X509SigningIdentity {
        let chain = try intermediates.map { try Self.read($0, "--intermediates") }
        let pin = ProcessInfo.processInfo.environment["MULTIAUTH_PKCS11_PIN"].map { Array($0.utf8) }
        do {
            let key = try await PKCS11Key.open(try PKCS11URI(keyURI), module: pkcs11Lib, pin: pin)
            let identity: X509SigningIdentity
            if certificate.hasPrefix("pkcs11:") {
                let holder = certificate == keyURI ? key : try await PKCS11Key.open(try PKCS11URI(certificate), module: pkcs11Lib, pin: pin)
                guard let der = try await holder.certificate() else {
                    throw X509IdentityError.pkcs11("no certificate in the token matches '\(String(certificate.prefix { $0 != "?" }))'")
                }
                identity = try X509SigningIdentity(certificateDER: der, intermediates: chain, key: key)
            } else {
                identity = try X509SigningIdentity(certificate: try Self.read(certificate, "--certificate"), intermediates: chain, key: key)
            }
            return identity
        } catch let error as X509IdentityError { throw error }
    }

    private static func read(_ path: String, _ flag: String) throws -> [UInt8] {
        switch BoundedFileRead.contents(atPath: path, limit: 1 << 20) {
        case .success(let bytes): return bytes
        case .failure(let failure): throw CLIError(flag, "\(path): \(failure)")
        }
    }
}

extension X509IdentityError.Kind {
    var isPassphraseRequired: Bool { if case .passphraseRequired = self { true } else { false } }
    var isWrongPassphrase: Bool { if case .wrongPassphrase = self { true } else { false } }
}

/// `rolesanywhere serve` as `multiauth` lists it: `multiauth-server` runs it (it needs the
/// IMDSv2 server), and `multiauth` hands it over before parsing (``ServerCommand/runsInServer(_:)``).
package struct RolesAnywhereServeEntry: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(commandName: "serve", abstract: RolesAnywhereServeEntry.abstract)
    /// The summary both executables show.
    package static let abstract = "Serve a Roles Anywhere session on an IMDSv2 endpoint on 127.0.0.1 (as aws_signing_helper serve), refreshed before it expires."

    @Argument(parsing: .allUnrecognized) var arguments: [String] = []

    package func run() throws {
        throw CLIError(message: "rolesanywhere serve runs in \(ServerCommand.executableName), which multiauth starts for it")
    }
}

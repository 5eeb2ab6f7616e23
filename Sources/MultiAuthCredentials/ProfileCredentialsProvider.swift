import Logging
import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthSigV4
import Subprocess

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials from a named profile of the shared files: static keys, `credential_process`,
/// `role_arn` with `source_profile` (STS AssumeRole, cycles detected) or with
/// `web_identity_token_file` (STS AssumeRoleWithWebIdentity), IAM Identity Center (SSO:
/// `sso_session` or `sso_start_url`, with `sso_account_id` and `sso_role_name`), a SAML
/// sign-in kept in the store (`saml_session`, through the ``SessionCache``), or
/// `credential_source = Environment | Ec2InstanceMetadata | EcsContainer`.
///
/// A role profile's `duration_seconds`, `external_id` and `mfa_serial` go with its AssumeRole;
/// a profile with static keys and `mfa_serial` gets a GetSessionToken session with the code.
/// With a ``SessionCache``, the session a profile obtains is kept and reused.
public struct ProfileCredentialsProvider: CredentialsProvider {
    let profile: String
    let environment: [String: String]
    let http: any HTTPSender
    let mfaCode: MFACodeSource?
    let sessionCache: (any SessionCache)?
    let ssoSignIn: SSOSignIn?

    /// The profile `profile`, else `AWS_PROFILE`, else `default`. `mfaCode` answers a profile
    /// with `mfa_serial` (without it, such a profile fails unless its session is cached);
    /// `sessionCache` keeps the sessions obtained; `ssoSignIn` signs a person in again when an
    /// SSO login has expired.
    public init(
        profile: String? = nil, environment: [String: String]? = nil, http: any HTTPSender, mfaCode: MFACodeSource? = nil,
        sessionCache: (any SessionCache)? = nil, ssoSignIn: SSOSignIn? = nil
    ) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.profile = profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
        self.environment = environment
        self.http = http
        self.mfaCode = mfaCode
        self.sessionCache = sessionCache
        self.ssoSignIn = ssoSignIn
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let files = try SharedConfigFiles.load(environment: environment)
        guard let settings = files.profiles[profile] else {
            if profile == "default" { throw .notFound("no [default] profile in \(files.paths.joined(separator: " or "))") }
            throw .profileNotFound(profile: profile, files: files.paths)
        }
        guard let sessionCache, try Self.makesSession(settings, profile: profile, files: files) else {
            return try await resolve(profile, files: files, chain: [])
        }
        let key = SessionKey(profile: profile, profileSettings: settings, files: files.paths)
        return try await sessionCache.session(for: key) { () async throws(CredentialsError) -> ExpiringCredentials in
            try await resolve(profile, files: files, chain: [])
        }
    }

    /// Whether the profile's credentials are a session worth keeping: a role, SSO, or
    /// static keys with `mfa_serial`.
    private static func makesSession(_ settings: [String: String], profile: String, files: SharedConfigFiles) throws(CredentialsError) -> Bool {
        if settings["role_arn"] != nil || (settings["mfa_serial"] != nil && settings["aws_access_key_id"] != nil) { return true }
        return try SSOSessionConfiguration.of(profile: profile, in: files) != nil
    }

    /// The profile's `region`, else `AWS_REGION` or `AWS_DEFAULT_REGION`, else `us-east-1`, checked.
    private func profileRegion(_ settings: [String: String], profile name: String) throws(CredentialsError) -> String {
        if let region = nonEmpty(settings["region"]) { return try checkedRegion(region, source: "profile '\(name)' region") }
        return try SharedConfigFiles.environmentRegion(environment) ?? "us-east-1"
    }

    /// The most profiles a `source_profile` chain may pass through.
    static let maxChainLength = 64

    private func resolve(_ name: String, files: SharedConfigFiles, chain: [String]) async throws(CredentialsError) -> ExpiringCredentials {
        guard !chain.contains(name) else { throw .profileCycle(chain + [name]) }
        // Real chains are a few profiles long; the cap keeps a hostile file's cost small
        // (each level holds the chain, so 10,000 levels once took 874 MB).
        guard chain.count < Self.maxChainLength else {
            throw .incompleteProfile(profile: chain[0], problem: "its source_profile chain is longer than \(Self.maxChainLength) profiles")
        }
        guard let settings = files.profiles[name] else { throw .profileNotFound(profile: name, files: files.paths) }
        let region = try profileRegion(settings, profile: name)
        let sts = STSClient(client: try files.client(for: "sts", profile: name, region: region, environment: environment, http: http))
        let sessionName = settings["role_session_name"] ?? "multiauth-\(Int(TimeSource.system.now()))"
        if let roleArn = settings["role_arn"] {
            if let tokenFile = settings["web_identity_token_file"] {
                return try await sts.assumeRoleWithWebIdentity(
                    roleArn: roleArn, sessionName: sessionName, token: try readToken(tokenFile, profile: name))
            }
            let source: ExpiringCredentials
            if let sourceProfile = settings["source_profile"] {
                // A profile that names itself as source uses its own static keys (botocore's rule).
                source = sourceProfile == name
                    ? try staticKeys(settings, profile: name)
                    : try await resolve(sourceProfile, files: files, chain: chain + [name])
            } else if let credentialSource = settings["credential_source"] {
                source = try await credentials(from: credentialSource, profile: name, settings: settings)
            } else {
                throw .incompleteProfile(profile: name, problem: "role_arn needs source_profile, credential_source or web_identity_token_file")
            }
            return try await sts.assumeRole(
                roleArn: roleArn, sessionName: sessionName, source: source.credentials,
                options: try await sessionOptions(settings, profile: name, externalId: settings["external_id"]))
        }
        if let sso = try SSOSessionConfiguration.of(profile: name, in: files) {
            guard let account = nonEmpty(settings["sso_account_id"]), let role = nonEmpty(settings["sso_role_name"]) else {
                throw .incompleteProfile(profile: name, problem: "an SSO profile needs sso_account_id and sso_role_name for credentials")
            }
            let endpoints = try SSOEndpoints(region: sso.region, environment: environment, profile: name, files: files, http: http)
            return try await SSOCredentialsProvider(
                configuration: sso, accountId: account, roleName: role, loginCommand: "multiauth login sso --profile \(name)",
                environment: environment, endpoints: endpoints, http: http, signIn: ssoSignIn
            ).credentials()
        }
        if let samlSession = nonEmpty(settings["saml_session"]) {
            guard let sessionCache else {
                throw .incompleteProfile(profile: name, problem: "saml_session \(samlSession) is kept in the credential store, which is not open here")
            }
            return try await sessionCache.signedInSession(named: samlSession, profile: name)
        }
        if settings["aws_access_key_id"] != nil {
            let keys = try staticKeys(settings, profile: name)
            // Only the profile asked for gets a session: a source profile's keys sign as they are.
            guard chain.isEmpty, settings["mfa_serial"] != nil else { return keys }
            return try await sts.getSessionToken(source: keys.credentials, options: try await sessionOptions(settings, profile: name))
        }
        // botocore's order: the login provider after the credentials file's keys, before credential_process.
        if let session = nonEmpty(settings["login_session"]) {
            return try await LoginSessionCredentialsProvider(
                session: session, region: region, environment: environment, http: http, loginCommand: "multiauth login aws --profile \(name)"
            ).credentials()
        }
        if let command = settings["credential_process"] {
            return try await CredentialProcess.run(command, profile: name, environment: environment)
        }
        // botocore's rule: a profile without credential settings (a region only, say) is not an
        // error; the chain goes on to the container endpoint and instance metadata.
        throw .notFound("profile '\(name)' has no aws_access_key_id, role_arn, sso_session, saml_session, login_session or credential_process")
    }

    /// `duration_seconds`, `external_id` and, with `mfa_serial`, the device's current code.
    private func sessionOptions(
        _ settings: [String: String], profile: String, externalId: String? = nil
    ) async throws(CredentialsError) -> SessionOptions {
        var options = SessionOptions(externalId: nonEmpty(externalId))
        if let text = nonEmpty(settings["duration_seconds"]) {
            guard let seconds = Int(text), (900...43_200).contains(seconds) else {
                throw .incompleteProfile(profile: profile, problem: "duration_seconds must be a whole number from 900 to 43200")
            }
            options.durationSeconds = seconds
        }
        if let serial = nonEmpty(settings["mfa_serial"]) {
            guard let mfaCode else {
                throw .mfaCodeUnavailable(profile: profile, serial: serial, problem: "a session needs an MFA code and none was given")
            }
            options.mfa = (serial, try await mfaCode.code(serial: serial, profile: profile))
        }
        return options
    }

    /// `credential_source`: where the credentials that assume the role come from.
    private func credentials(
        from credentialSource: String, profile: String, settings: [String: String]
    ) async throws(CredentialsError) -> ExpiringCredentials {
        switch credentialSource {
        case "Environment": return try await EnvironmentCredentialsProvider(environment: environment).credentials()
        case "EcsContainer": return try await ContainerCredentialsProvider(environment: environment, http: http).credentials()
        case "Ec2InstanceMetadata":
            let settings = try InstanceMetadataSettings(environment: environment, profile: settings)
            return try await InstanceMetadataCredentialsProvider(client: InstanceMetadataClient(settings: settings, http: http)).credentials()
        default:
            throw .incompleteProfile(
                profile: profile,
                problem: "credential_source \(Redaction.quoted(credentialSource)) is not Environment, Ec2InstanceMetadata or EcsContainer")
        }
    }

    private func staticKeys(_ settings: [String: String], profile: String) throws(CredentialsError) -> ExpiringCredentials {
        guard let keyId = nonEmpty(settings["aws_access_key_id"]), let secret = nonEmpty(settings["aws_secret_access_key"]) else {
            throw .incompleteProfile(profile: profile, problem: "aws_access_key_id without aws_secret_access_key")
        }
        let token = nonEmpty(settings["aws_session_token"])
        try checkWireSafe([("aws_access_key_id", keyId), ("aws_session_token", token)], source: "profile '\(profile)'")
        return ExpiringCredentials(AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: token), source: "profile '\(profile)'")
    }

    private func readToken(_ path: String, profile: String) throws(CredentialsError) -> String {
        switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.secretLimit) {
        case .success(let data): return String(decoding: data, as: UTF8.self).trimmedWhitespace
        case .failure(let failure): throw .incompleteProfile(profile: profile, problem: "web_identity_token_file \(path) \(failure)")
        }
    }
}

/// `credential_process`: runs the command through `/bin/sh -c` off the cooperative pool and
/// reads its JSON (`Version` 1, `AccessKeyId`, `SecretAccessKey`, `SessionToken`, `Expiration`).
enum CredentialProcess {
    private struct Output: Decodable {
        let Version: Int
        let AccessKeyId: String
        let SecretAccessKey: String
        let SessionToken: String?
        let Expiration: String?
    }

    /// How long a credential_process may run.
    static let timeout: Double = 30

    /// The variable that carries the profiles whose `credential_process` is running, outermost
    /// first, into each command: a profile whose command runs MultiAuth on that same profile
    /// (`credential_process = multiauth credentials …` in the profile it resolves) would
    /// otherwise start itself again and again until the deadline.
    static let profilesVariable = "MULTIAUTH_CREDENTIAL_PROCESS_PROFILES"
    /// The most credential processes nested inside one another.
    static let maxDepth = 4

    static func run(_ command: String, profile: String, environment: [String: String]) async throws(CredentialsError) -> ExpiringCredentials {
        let running = environment[profilesVariable].map { $0.split(separator: ",").map(String.init) } ?? []
        guard !running.contains(profile), running.count < maxDepth else {
            throw .credentialProcessFailed(
                command: command,
                problem: "not run: it would resolve profile '\(profile)' again from inside its own credential_process (profiles being resolved: \((running + [profile]).joined(separator: " → ")))")
        }
        let output: [UInt8]
        do throws(ShellCommandError) {
            output = try await ShellCommand.output(of: command, timeout: timeout, setting: [profilesVariable: (running + [profile]).joined(separator: ",")])
        } catch {
            if case .timedOut(let seconds) = error.kind { throw .timedOut(source: "credential_process '\(command)'", seconds: seconds) }
            throw .credentialProcessFailed(command: command, problem: error.description)
        }
        let parsed: Output
        do { parsed = try JSONDecoding.decode(Output.self, from: output, what: "its output") } catch {
            throw .credentialProcessFailed(command: command, problem: error.description)
        }
        guard parsed.Version == 1 else {
            throw .credentialProcessFailed(command: command, problem: "unsupported Version \(parsed.Version)")
        }
        try checkWireSafe([("AccessKeyId", parsed.AccessKeyId), ("SessionToken", parsed.SessionToken)], source: "credential_process '\(command)'")
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: parsed.AccessKeyId, secretAccessKey: parsed.SecretAccessKey, sessionToken: parsed.SessionToken),
            expiration: parsed.Expiration.flatMap(ISO8601.parse), source: "credential_process")
    }
}

/// AssumeRoleWithWebIdentity from `AWS_ROLE_ARN` and `AWS_WEB_IDENTITY_TOKEN_FILE`.
struct WebIdentityEnvironmentProvider: CredentialsProvider {
    let roleArn: String
    let tokenFile: String
    let environment: [String: String]
    let http: any HTTPSender

    func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            throw .notFound("cannot read AWS_WEB_IDENTITY_TOKEN_FILE \(tokenFile)")
        }
        let region = try SharedConfigFiles.environmentRegion(environment) ?? "us-east-1"
        let sts = try STSClient(region: region, environment: environment, http: http)
        return try await sts.assumeRoleWithWebIdentity(
            roleArn: roleArn, sessionName: environment["AWS_ROLE_SESSION_NAME"] ?? "multiauth-web-identity",
            token: String(decoding: data, as: UTF8.self).trimmedWhitespace)
    }
}

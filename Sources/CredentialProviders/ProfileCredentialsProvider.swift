import Logging
import MultiAuthCore
import HTTPTransport
import SigV4
import Subprocess

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials from a named profile of the shared files: static keys, `credential_process`,
/// `role_arn` with `source_profile` (STS AssumeRole, cycles detected) or with
/// `web_identity_token_file` (STS AssumeRoleWithWebIdentity), IAM Identity Center (SSO:
/// `sso_session` or `sso_start_url`, with `sso_account_id` and `sso_role_name`), or
/// `credential_source = Environment | Ec2InstanceMetadata | EcsContainer`.
public struct ProfileCredentialsProvider: CredentialsProvider {
    let profile: String
    let environment: [String: String]
    let http: any HTTPSender

    /// The profile `profile`, else `AWS_PROFILE`, else `default`.
    public init(profile: String? = nil, environment: [String: String]? = nil, http: any HTTPSender) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.profile = profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
        self.environment = environment
        self.http = http
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let files = try SharedConfigFiles.load(environment: environment)
        guard files.profiles[profile] != nil else {
            if profile == "default" { throw .notFound("no [default] profile in \(files.paths.joined(separator: " or "))") }
            throw .profileNotFound(profile: profile, files: files.paths)
        }
        return try await resolve(profile, files: files, chain: [])
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
        let endpoint = try files.endpoint(for: "sts", profile: name, region: region, environment: environment)
        let sts = try STSClient(region: region, endpoint: endpoint, http: http)
        let sessionName = settings["role_session_name"] ?? "multiauth-\(Int(Date().timeIntervalSince1970))"
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
            return try await sts.assumeRole(roleArn: roleArn, sessionName: sessionName, source: source.credentials)
        }
        if let sso = try SSOSessionConfiguration.of(profile: name, in: files) {
            guard let account = nonEmpty(settings["sso_account_id"]), let role = nonEmpty(settings["sso_role_name"]) else {
                throw .incompleteProfile(profile: name, problem: "an SSO profile needs sso_account_id and sso_role_name for credentials")
            }
            let endpoints = try SSOEndpoints(region: sso.region, environment: environment, profile: name, files: files)
            return try await SSOCredentialsProvider(
                configuration: sso, accountId: account, roleName: role, loginCommand: "multiauth login sso --profile \(name)",
                environment: environment, endpoints: endpoints, http: http
            ).credentials()
        }
        if settings["aws_access_key_id"] != nil { return try staticKeys(settings, profile: name) }
        if let command = settings["credential_process"] { return try await CredentialProcess.run(command) }
        // botocore's rule: a profile without credential settings (a region only, say) is not an
        // error; the chain goes on to the container endpoint and instance metadata.
        throw .notFound("profile '\(name)' has no aws_access_key_id, role_arn, sso_session or credential_process")
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
            return try await InstanceMetadataCredentialsProvider(client: InstanceMetadataClient(settings: settings)).credentials()
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

    static func run(_ command: String) async throws(CredentialsError) -> ExpiringCredentials {
        let output: [UInt8]
        do throws(ShellCommandError) { output = try await ShellCommand.output(of: command, timeout: timeout) } catch {
            if case .timedOut(let seconds) = error { throw .timedOut(source: "credential_process '\(command)'", seconds: seconds) }
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

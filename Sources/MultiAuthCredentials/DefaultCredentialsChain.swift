public import Logging
public import MultiAuthCore
public import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default chain, in botocore's order: the environment keys, web identity from
/// `AWS_ROLE_ARN` + `AWS_WEB_IDENTITY_TOKEN_FILE`, the shared-file profile (assume role with
/// `source_profile` or `credential_source`, web identity, SSO, static keys,
/// `credential_process`), the container endpoint when its variables are set, then EC2
/// instance metadata unless `AWS_EC2_METADATA_DISABLED=true`. A named profile skips the
/// environment keys and web identity variables, as botocore does. The result is cached and
/// refreshed ahead of expiry.
public enum DefaultCredentialsChain {
    /// Builds the chain. `mfaCode`, `sessionCache` and `ssoSignIn` go to the profile's provider
    /// (``ProfileCredentialsProvider``): codes for `mfa_serial`, sessions kept between
    /// processes, and a person's sign-in when an SSO login has expired.
    public static func make(
        profile: String? = nil, environment: [String: String]? = nil, http: any HTTPSender, mfaCode: MFACodeSource? = nil,
        sessionCache: (any SessionCache)? = nil, ssoSignIn: SSOSignIn? = nil, logger: Logger = .disabled
    ) -> CachingCredentialsProvider {
        let environment = environment ?? ProcessInfo.processInfo.environment
        var providers: [any CredentialsProvider] = []
        if profile == nil { providers.append(EnvironmentCredentialsProvider(environment: environment)) }
        if profile == nil, let roleArn = nonEmpty(environment["AWS_ROLE_ARN"]), let tokenFile = nonEmpty(environment["AWS_WEB_IDENTITY_TOKEN_FILE"]) {
            providers.append(WebIdentityEnvironmentProvider(roleArn: roleArn, tokenFile: tokenFile, environment: environment, http: http))
        }
        providers.append(
            ProfileCredentialsProvider(
                profile: profile, environment: environment, http: http, mfaCode: mfaCode, sessionCache: sessionCache, ssoSignIn: ssoSignIn))
        if ContainerCredentialsProvider.isConfigured(environment) {
            providers.append(ContainerCredentialsProvider(environment: environment, http: http))
        }
        providers.append(instanceMetadata(profile: profile, environment: environment, http: http))
        return CachingCredentialsProvider(CredentialsChain(providers), logger: logger)
    }

    /// IMDS with settings from the environment and the profile's config keys; a setting that
    /// cannot be used is reported when the chain reaches it.
    static func instanceMetadata(profile: String?, environment: [String: String], http: any HTTPSender) -> any CredentialsProvider {
        let name = profile ?? nonEmpty(environment["AWS_PROFILE"]) ?? "default"
        let settings = (try? SharedConfigFiles.load(environment: environment))?.profiles[name] ?? [:]
        do throws(CredentialsError) {
            return InstanceMetadataCredentialsProvider(client: InstanceMetadataClient(settings: try InstanceMetadataSettings(environment: environment, profile: settings), http: http))
        } catch {
            return FailingCredentialsProvider(error: error)
        }
    }
}

/// A source that reports a configuration error when the chain reaches it.
struct FailingCredentialsProvider: CredentialsProvider {
    let error: CredentialsError

    func credentials() async throws(CredentialsError) -> ExpiringCredentials { throw error }
}

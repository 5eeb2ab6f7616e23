package import ArgumentParser
import HTTPTypes
package import Logging
package import MultiAuthAuthorization
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The auth mode of an outgoing call and what it needs (`--auth`, `--api-key`, `--token`,
/// `--name`, `--profile`, …), shared by `request` and `proxy`, and the authorizer they make.
package struct AuthorizationOptions: ParsableArguments {
    package init() {}

    /// The modes a call can be authorized in.
    package enum Auth: String, ExpressibleByArgument, CaseIterable {
        case apiKey = "api-key", iam, userPools = "user-pools", oidc, lambda, none
    }

    @Option(name: .customLong("auth"), help: "api-key, iam, user-pools, oidc, lambda or none (default: none; iam for mcp-proxy).")
    package var authOption: Auth?
    /// The mode given, else none.
    package var auth: Auth { authOption ?? .none }
    @Option(help: "The API key, or @FILE to read it from a file (else MULTIAUTH_API_KEY).") var apiKey: String?
    @Option(help: "The token for user-pools, oidc or lambda, or @FILE to read it from a file.") package var token: String?
    @Option(help: "A command whose output is the token, run for every request (at most 30 s; it runs in its own process group and cannot prompt on the terminal).")
    package var tokenCommand: String?
    @Option(help: "Use the saved login NAME (see 'multiauth login') for user-pools, oidc or lambda.") var name: String?
    @Option(help: "With --name: the id (default) or access token.") var tokenType: AuthTokens.Kind = .id
    @OptionGroup package var store: StoreOptions
    @OptionGroup package var sessions: ProfileSessionOptions
    @Flag(help: "Send 'Authorization: Bearer <token>' instead of the raw token.") package var bearer = false
    @Option(help: "The shared-file profile for IAM credentials.") package var profile: String?
    @Option(help: "With --auth iam: sign SigV4a (AWS4-ECDSA-P256-SHA256) for this region set ('*', or regions separated by commas) instead of SigV4.")
    package var regionSet: String?
    @Option(help: "With --auth iam: assume this role (STS AssumeRole with the chain's credentials, refreshed ahead of expiry) and sign as it.")
    package var roleArn: String?
    @Option(help: "Signing region (inferred for execute-api, appsync-api and Bedrock hosts).", transform: regionArgument) package var region: String?
    @Option(help: "Signing service (inferred for execute-api, appsync-api and Bedrock hosts). For bedrock, AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) is sent as Authorization: Bearer instead of a signature when set, as the AWS SDKs do.") package var service: String?

    package func validate() throws {
        if roleArn != nil, authOption != nil, auth != .iam { throw CLIError("--role-arn", "needs --auth iam") }
        if regionSet != nil, authOption != nil, auth != .iam { throw CLIError("--region-set", "needs --auth iam") }
        try ArgumentChecks.wireText(regionSet, "--region-set")
        try ArgumentChecks.wireText(region, "--region")
        try ArgumentChecks.wireText(service, "--service")
    }

    /// The authorizer for calls to `host`, in the mode given or else `defaultMode`.
    /// `tokenCommandLimit` bounds each run of `--token-command`; `payloadSigning` is how IAM
    /// signs bodies.
    package func authorizer(
        forHost host: String, logger: Logger, tokenCommandLimit: Double = CommandTimeout.defaultSeconds,
        payloadSigning: IAMAuthorizer.PayloadSigning = .signed, defaultMode: Auth = .none
    ) async throws -> any RequestAuthorizer {
        if roleArn != nil || regionSet != nil, (authOption ?? defaultMode) != .iam { throw CLIError(roleArn != nil ? "--role-arn" : "--region-set", "needs --auth iam") }
        switch authOption ?? defaultMode {
        case .none: return NoAuthorizer()
        case .apiKey:
            let given = try apiKey.map { try CommandLineSecret.value($0, flag: "--api-key", alternative: "MULTIAUTH_API_KEY") }
            guard let key = given ?? ProcessInfo.processInfo.environment["MULTIAUTH_API_KEY"], !key.isEmpty else {
                throw CLIError("--api-key", "required for --auth api-key (or set MULTIAUTH_API_KEY)")
            }
            return APIKeyAuthorizer(key: .fixed(key))
        case .userPools, .oidc, .lambda:
            if let token { return TokenAuthorizer(token: .fixed(try CommandLineSecret.value(token, flag: "--token", alternative: nil)), bearer: bearer) }
            if let tokenCommand { return TokenAuthorizer(token: .command(tokenCommand, timeout: tokenCommandLimit), bearer: bearer) }
            if let name {
                var login = LoginOptions()
                login.name = name
                login.store = store
                let (_, provider) = try await login.provider()
                return TokenAuthorizer(token: .token(from: provider, kind: tokenType), bearer: bearer)
            }
            throw CLIError("--token", "required for --auth \(auth.rawValue) (or give --token-command or --name)")
        case .iam:
            let (region, service) = try await signingScope(forHost: host)
            if let key = Self.bedrockAPIKey(service: service) {
                // As the AWS SDKs do: a Bedrock API key in the environment replaces SigV4 for bedrock.
                logger.debug("authorizing with AWS_BEARER_TOKEN_BEDROCK instead of SigV4")
                return TokenAuthorizer(token: .fixed(key), bearer: true)
            }
            var credentials: any CredentialsProvider = sessions.chain(profile: profile, store: store)
            if let roleArn {
                do throws(CredentialsError) {
                    credentials = try AssumeRoleCredentialsProvider.make(
                        roleArn: roleArn, source: credentials, region: region, http: CommandTimeout.transport())
                } catch { throw CLIError("--role-arn", error) }
            }
            return IAMAuthorizer(
                credentials: credentials, region: region, service: service, algorithm: regionSet.map { .sigV4a(regionSet: $0) } ?? .sigV4,
                payloadSigning: payloadSigning, logger: logger)
        }
    }

    /// `AWS_BEARER_TOKEN_BEDROCK` when the call is signed for `bedrock` and it is set: the
    /// SDKs then send it as `Authorization: Bearer` instead of signing.
    static func bedrockAPIKey(service: String) -> String? {
        guard service == "bedrock", let key = ProcessInfo.processInfo.environment["AWS_BEARER_TOKEN_BEDROCK"], !key.isEmpty else { return nil }
        return key
    }

    /// The region and service: given, inferred from an execute-api or appsync-api host, or
    /// (the region) configured through AWS_REGION, AWS_DEFAULT_REGION, the profile or the
    /// instance's metadata.
    private func signingScope(forHost host: String) async throws -> (region: String, service: String) {
        let inferred = EndpointInference.regionAndService(host: host)
        var resolved = region ?? inferred?.region
        if resolved == nil { resolved = try await SharedConfigFiles.resolvedRegion(profile: profile, http: CommandTimeout.transport()) }
        guard let region = resolved else {
            throw CLIError(
                "--region",
                "required: \(host) is not an execute-api, appsync-api or Bedrock host, and no AWS_REGION, AWS_DEFAULT_REGION, profile region or instance metadata region is set")
        }
        guard let service = service ?? inferred?.service else {
            throw CLIError("--service", "required: \(host) is not an execute-api, appsync-api or Bedrock host")
        }
        return (region, service)
    }
}

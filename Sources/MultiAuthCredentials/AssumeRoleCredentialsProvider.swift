public import MultiAuthCore
public import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials of a role, assumed through STS AssumeRole with `source`'s credentials (aws-sigv4-proxy's
/// `--role-arn`). Each call assumes the role again: wrap it in a
/// ``CachingCredentialsProvider`` to refresh ahead of expiry, as ``make(roleArn:source:region:sessionName:environment:http:)`` does.
public struct AssumeRoleCredentialsProvider: CredentialsProvider {
    let roleArn: String
    let sessionName: String
    let source: any CredentialsProvider
    let sts: STSClient

    /// Assumes `roleArn` as `sessionName` through STS in `region` (its endpoint resolved as
    /// botocore resolves it, `AWS_ENDPOINT_URL_STS` included), signing with `source`.
    /// Without `sessionName`, the session is named `multiauth-` and the seconds of `clock`.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a region that is not one.
    public init(
        roleArn: String, source: any CredentialsProvider, region: String, sessionName: String? = nil,
        environment: [String: String]? = nil, http: any HTTPSender, clock: TimeSource = .system
    ) throws(CredentialsError) {
        self.roleArn = roleArn
        self.sessionName = sessionName ?? "multiauth-\(Int(clock.now()))"
        self.source = source
        sts = try STSClient(region: region, environment: environment ?? ProcessInfo.processInfo.environment, http: http)
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        try await sts.assumeRole(roleArn: roleArn, sessionName: sessionName, source: try await source.credentials().credentials)
    }

    /// The role's credentials, cached and refreshed ahead of expiry.
    public static func make(
        roleArn: String, source: any CredentialsProvider, region: String, sessionName: String? = nil,
        environment: [String: String]? = nil, http: any HTTPSender
    ) throws(CredentialsError) -> CachingCredentialsProvider {
        CachingCredentialsProvider(
            try AssumeRoleCredentialsProvider(
                roleArn: roleArn, source: source, region: region, sessionName: sessionName, environment: environment, http: http))
    }
}

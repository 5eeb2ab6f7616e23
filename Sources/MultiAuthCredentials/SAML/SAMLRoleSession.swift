public import MultiAuthHTTP


#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The session a checked SAML response gets from STS (`AssumeRoleWithSAML`, unsigned as the
/// service expects), through the one AWS client: `AWS_ENDPOINT_URL_STS` and the retry settings
/// apply as for every STS call.
public enum SAMLRoleSession {
    /// Assumes `role` with `response` for `durationSeconds` (else the response's
    /// `SessionDuration`, else STS's hour) in `region`.
    public static func assume(
        _ role: SAMLRole, with response: SAMLResponse, durationSeconds: Int? = nil, region: String,
        environment: [String: String] = ProcessInfo.processInfo.environment, http: any HTTPSender
    ) async throws(CredentialsError) -> ExpiringCredentials {
        let sts = try STSClient(region: region, environment: environment, http: http)
        return try await sts.assumeRoleWithSAML(role, assertion: response.encoded, durationSeconds: durationSeconds ?? response.sessionDuration)
    }
}

import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The STS calls credential resolution needs, over STS's query API, through the one AWS client.
struct STSClient {
    let client: AWSClient

    /// STS as `client` reaches it.
    init(client: AWSClient) { self.client = client }

    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when `region` is not a
    ///   region name, even with an explicit `endpoint` (it is signed into the scope), or a retry
    ///   setting in `environment` is not one.
    init(
        region: String, endpoint: ServiceEndpoint? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        http: any HTTPSender
    ) throws(CredentialsError) {
        client = try .forChain(service: "sts", region: region, endpoint: endpoint, environment: environment, http: http)
    }

    /// AssumeRole, signed with `source`, with a profile's optional settings.
    func assumeRole(
        roleArn: String, sessionName: String, source: AWSCredentials, options: SessionOptions = .init()
    ) async throws(CredentialsError) -> ExpiringCredentials {
        try await request("AssumeRole", [("RoleArn", roleArn), ("RoleSessionName", sessionName)] + options.parameters, signWith: source)
    }

    /// GetSessionToken, signed with `source`: a session for long-term keys, with an MFA code
    /// when `options` carries one.
    func getSessionToken(source: AWSCredentials, options: SessionOptions) async throws(CredentialsError) -> ExpiringCredentials {
        try await request("GetSessionToken", options.parameters, signWith: source)
    }

    /// GetFederationToken, signed with long-term keys `source`: a session of the federated user
    /// `name` whose permissions are `policy`'s within the IAM user's.
    func getFederationToken(name: String, policy: String, durationSeconds: Int?, source: AWSCredentials) async throws(CredentialsError) -> ExpiringCredentials {
        var parameters = [("Name", name), ("Policy", policy)]
        if let durationSeconds { parameters.append(("DurationSeconds", String(durationSeconds))) }
        return try await request("GetFederationToken", parameters, signWith: source)
    }

    /// AssumeRoleWithWebIdentity, unsigned: the web identity token is the proof.
    func assumeRoleWithWebIdentity(roleArn: String, sessionName: String, token: String) async throws(CredentialsError) -> ExpiringCredentials {
        try await request(
            "AssumeRoleWithWebIdentity", [("RoleArn", roleArn), ("RoleSessionName", sessionName), ("WebIdentityToken", token)], signWith: nil)
    }

    /// AssumeRoleWithSAML, unsigned: the identity provider's signed assertion is the proof.
    func assumeRoleWithSAML(_ role: SAMLRole, assertion: String, durationSeconds: Int?) async throws(CredentialsError) -> ExpiringCredentials {
        var parameters = [("RoleArn", role.roleArn), ("PrincipalArn", role.principalArn), ("SAMLAssertion", assertion)]
        if let durationSeconds { parameters.append(("DurationSeconds", String(durationSeconds))) }
        return try await request("AssumeRoleWithSAML", parameters, signWith: nil)
    }

    private func request(
        _ action: String, _ parameters: [(String, String)], signWith source: AWSCredentials?
    ) async throws(CredentialsError) -> ExpiringCredentials {
        let response: ReceivedResponse
        do { response = try await client.send(.query(action, version: "2011-06-15", parameters), signedWith: source.map(fixedKeys)) } catch { throw CredentialsError(error) }
        let xml = String(decoding: response.body, as: UTF8.self)
        guard let keyId = XMLText.value(of: "AccessKeyId", in: xml), let secret = XMLText.value(of: "SecretAccessKey", in: xml)
        else { throw .serviceError(service: "sts", code: "MalformedResponse", message: "no credentials in the response") }
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: XMLText.value(of: "SessionToken", in: xml)),
            expiration: XMLText.value(of: "Expiration", in: xml).flatMap(ISO8601.parse),
            source: "STS " + action)
    }
}

/// What a profile may add to an STS session request: `duration_seconds`, `external_id`
/// (AssumeRole only) and an MFA device's serial with its current code.
struct SessionOptions: Sendable {
    var durationSeconds: Int?
    var externalId: String?
    var mfa: (serial: String, code: String)?

    var parameters: [(String, String)] {
        var parameters: [(String, String)] = []
        if let durationSeconds { parameters.append(("DurationSeconds", String(durationSeconds))) }
        if let externalId { parameters.append(("ExternalId", externalId)) }
        if let mfa { parameters += [("SerialNumber", mfa.serial), ("TokenCode", mfa.code)] }
        return parameters
    }
}

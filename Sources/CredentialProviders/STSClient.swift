import HTTPTransport
import MultiAuthCore
import SigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two STS calls credential resolution needs, over STS's query API.
struct STSClient {
    let call: AWSServiceCall

    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when `region` is not a
    ///   region name, even with an explicit `endpoint` (it is signed into the scope).
    init(
        region: String, endpoint: ServiceEndpoint? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        http: any HTTPSender
    ) throws(CredentialsError) {
        let resolved: ServiceEndpoint
        do throws(InvalidRegionError) {
            // Checked even with an explicit endpoint; resolve checks it otherwise.
            if let endpoint { resolved = endpoint; try RegionName.validated(region, source: "the region for sts") } else {
                resolved = try .resolve(service: "sts", region: region, environment: environment)
            }
        } catch { throw CredentialsError(error) }
        call = AWSServiceCall(service: "sts", region: region, endpoint: resolved, http: http)
    }

    /// AssumeRole, signed with `source`, with a profile's optional settings.
    func assumeRole(
        roleArn: String, sessionName: String, source: AWSCredentials, options: SessionOptions = .init()
    ) async throws(CredentialsError) -> ExpiringCredentials {
        try await request(
            [("Action", "AssumeRole"), ("Version", "2011-06-15"), ("RoleArn", roleArn), ("RoleSessionName", sessionName)]
                + options.parameters, signWith: source)
    }

    /// GetSessionToken, signed with `source`: a session for long-term keys, with an MFA code
    /// when `options` carries one.
    func getSessionToken(source: AWSCredentials, options: SessionOptions) async throws(CredentialsError) -> ExpiringCredentials {
        try await request([("Action", "GetSessionToken"), ("Version", "2011-06-15")] + options.parameters, signWith: source)
    }

    /// AssumeRoleWithWebIdentity, unsigned: the web identity token is the proof.
    func assumeRoleWithWebIdentity(roleArn: String, sessionName: String, token: String) async throws(CredentialsError) -> ExpiringCredentials {
        try await request([
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleArn),
            ("RoleSessionName", sessionName), ("WebIdentityToken", token),
        ], signWith: nil)
    }

    private func request(_ parameters: [(String, String)], signWith source: AWSCredentials?) async throws(CredentialsError) -> ExpiringCredentials {
        let response = try await call.post(
            body: FormURLEncoding.encode(parameters),
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], signWith: source)
        let xml = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            let error = AWSErrorResponse(response)
            throw .serviceError(service: "sts", code: error.code ?? "HTTP \(response.status)", message: error.message ?? "")
        }
        guard let keyId = XMLText.value(of: "AccessKeyId", in: xml), let secret = XMLText.value(of: "SecretAccessKey", in: xml)
        else { throw .serviceError(service: "sts", code: "MalformedResponse", message: "no credentials in the response") }
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: XMLText.value(of: "SessionToken", in: xml)),
            expiration: XMLText.value(of: "Expiration", in: xml).flatMap(ISO8601.parse),
            source: "STS " + (parameters.first { $0.0 == "Action" }?.1 ?? ""))
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

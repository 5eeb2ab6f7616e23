import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The instance role's credentials from EC2 instance metadata, as botocore's
/// `InstanceMetadataProvider` reads them: the role name from
/// `latest/meta-data/iam/security-credentials/`, then that role's credentials document,
/// through ``InstanceMetadataClient`` (IMDSv2 token, bounded waits).
public struct InstanceMetadataCredentialsProvider: CredentialsProvider {
    /// The metadata client (its token is kept between calls).
    public let client: InstanceMetadataClient
    private static let credentialsPath = "meta-data/iam/security-credentials/"

    /// A provider over `client`.
    public init(client: InstanceMetadataClient) { self.client = client }

    /// A provider with settings read from `environment` (default: the process environment),
    /// sending through `http`.
    public init(environment: [String: String]? = nil, http: any HTTPSender) throws(CredentialsError) {
        let settings = try InstanceMetadataSettings(environment: environment ?? ProcessInfo.processInfo.environment)
        self.init(client: InstanceMetadataClient(settings: settings, http: http))
    }

    private struct Document: Decodable {
        let Code: String?
        let AccessKeyId: String?
        let SecretAccessKey: String?
        let Token: String?
        let Expiration: String?
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let roles = try await client.text(Self.credentialsPath)
        guard let role = roles.split(whereSeparator: \.isNewline).first.map(String.init), !role.isEmpty else {
            throw .notFound("the instance has no IAM role (\(client.settings.endpoint)latest/\(Self.credentialsPath) is empty)")
        }
        let text = try await client.text(Self.credentialsPath + role)
        let service = "\(client.service) role '\(role)'"
        // The document is never quoted: it carries the secret.
        let document: Document
        do { document = try JSONDecoding.decode(Document.self, from: text, what: "the answer") } catch {
            throw .serviceError(service: service, code: "MalformedResponse", message: error.description)
        }
        guard let keyId = document.AccessKeyId, let secret = document.SecretAccessKey, let token = document.Token,
            let expiration = document.Expiration.flatMap(ISO8601.parse)
        else {
            throw .serviceError(
                service: service, code: document.Code ?? "MalformedResponse",
                message: "the answer lacks AccessKeyId, SecretAccessKey, Token or Expiration")
        }
        try checkWireSafe([("AccessKeyId", keyId), ("Token", token)], source: service)
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: keyId, secretAccessKey: secret, sessionToken: token), expiration: expiration,
            source: "instance metadata role '\(role)'")
    }
}

import MultiAuthAWSClient
public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials from a Cognito identity pool: GetId, then GetCredentialsForIdentity, both
/// unsigned JSON calls. Without `logins` the identity is unauthenticated; with them
/// (`cognito-idp.REGION.amazonaws.com/POOL` → ID token, or an OIDC issuer → token) it is
/// the signed-in user's. The identity id is kept for later calls.
public actor CognitoIdentityCredentialsProvider: CredentialsProvider {
    private let identityPoolId: String
    private let logins: [String: String]
    private let client: AWSClient
    private var identityId: String?

    /// Creates a provider for `identityPoolId` (`REGION:UUID`).
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` when `region` is not a
    ///   region name.
    public init(
        identityPoolId: String, region: String, logins: [String: String] = [:], endpoint: ServiceEndpoint? = nil,
        http: any HTTPSender
    ) throws(CredentialsError) {
        self.identityPoolId = identityPoolId
        self.logins = logins
        client = try .forChain(
            service: "cognito-identity", region: region, endpoint: endpoint, environment: ProcessInfo.processInfo.environment, http: http)
    }

    private struct IdentityRequest: Encodable {
        var IdentityPoolId: String?
        var IdentityId: String?
        var Logins: [String: String]?
    }

    private struct Answer: Decodable {
        struct Credentials: Decodable {
            let AccessKeyId: String
            let SecretKey: String
            let SessionToken: String?
            let Expiration: Double?
        }
        let IdentityId: String?
        let Credentials: Credentials?
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let id = try await resolveIdentityId()
        let answer = try await invoke("GetCredentialsForIdentity", IdentityRequest(IdentityId: id, Logins: logins.isEmpty ? nil : logins))
        guard let credentials = answer.Credentials else {
            throw .serviceError(service: "cognito-identity", code: "MalformedResponse", message: "no Credentials")
        }
        return ExpiringCredentials(
            AWSCredentials(
                accessKeyId: credentials.AccessKeyId, secretAccessKey: credentials.SecretKey,
                sessionToken: credentials.SessionToken),
            expiration: credentials.Expiration.map { Date(timeIntervalSince1970: $0) }, source: "Cognito Identity")
    }

    private func resolveIdentityId() async throws(CredentialsError) -> String {
        if let identityId { return identityId }
        let request = IdentityRequest(IdentityPoolId: identityPoolId, Logins: logins.isEmpty ? nil : logins)
        guard let id = try await invoke("GetId", request).IdentityId else {
            throw .serviceError(service: "cognito-identity", code: "MalformedResponse", message: "no IdentityId")
        }
        identityId = id
        return id
    }

    private func invoke(_ operation: String, _ body: IdentityRequest) async throws(CredentialsError) -> Answer {
        let data: [UInt8]
        do { data = [UInt8](try JSONEncoder().encode(body)) } catch {
            throw .transport(service: "cognito-identity", problem: "cannot encode \(operation)")
        }
        let operation = AWSOperation.json(operation, targetPrefix: "AWSCognitoIdentityService", body: data)
        do throws(AWSCallError) { return try await client.json(operation, as: Answer.self, signedWith: nil) } catch { throw CredentialsError(error) }
    }
}

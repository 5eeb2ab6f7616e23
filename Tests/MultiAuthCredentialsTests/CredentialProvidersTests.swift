import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthHTTP
import MultiAuthSigV4
import MultiAuthTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credential providers against a scripted sender: what they send (hand-derived wire forms)
/// and how they read the answers, with no peer. End-to-end checks against moto and botocore
/// stay in CredentialChainTests.
@Suite struct CredentialProvidersTests {
    static let source = AWSCredentials(accessKeyId: "AKIDSOURCEUNIT", secretAccessKey: "source-unit-secret")
    static let stsAnswer = """
        <AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAUNIT</AccessKeyId>\
        <SecretAccessKey>unit-session-secret</SecretAccessKey><SessionToken>unit-token</SessionToken>\
        <Expiration>2030-01-02T03:04:05Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>
        """

    static func header(_ sent: ScriptedSender.Sent, _ name: String) -> String? { sent.request.headerFields[HTTPField.Name(name)!] }

    @Test func assumeRoleSendsTheQueryFormSignedWithTheSourceKeysAndReadsTheSession() async throws {
        let sender = ScriptedSender([.answer(200, Self.stsAnswer)])
        let provider = try AssumeRoleCredentialsProvider(
            roleArn: "arn:aws:iam::123456789012:role/unit", source: StaticCredentialsProvider(Self.source), region: "eu-west-1", sessionName: "s1",
            environment: ["AWS_ENDPOINT_URL_STS": "https://sts.unit.test/"], http: sender)
        let session = try await provider.credentials()
        #expect(session.credentials.accessKeyId == "ASIAUNIT" && session.credentials.sessionToken == "unit-token")
        #expect(session.expiration == Date(timeIntervalSince1970: 1_893_553_445))  // 2030-01-02T03:04:05Z
        #expect(session.source == "STS AssumeRole")
        let sent = try #require(sender.sent.first)
        #expect(sent.request.method == .post && sent.request.authority == "sts.unit.test")
        #expect(String(decoding: sent.body, as: UTF8.self)
            == "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Funit&RoleSessionName=s1")
        let authorization = try #require(Self.header(sent, "Authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDSOURCEUNIT/") && authorization.contains("/eu-west-1/sts/aws4_request"))
        #expect(!authorization.contains(Self.source.secretAccessKey))
    }

    /// AssumeRole in us-east-1 from the static source keys, at a stand-in STS endpoint.
    static func assumeRole(_ sender: ScriptedSender) throws -> AssumeRoleCredentialsProvider {
        try AssumeRoleCredentialsProvider(
            roleArn: "arn:aws:iam::123456789012:role/unit", source: StaticCredentialsProvider(Self.source), region: "us-east-1",
            environment: ["AWS_ENDPOINT_URL_STS": "https://sts.unit.test/"], http: sender)
    }

    @Test func anSTSRefusalNamesTheServiceTheOperationAndTheCode() async throws {
        let refusal = "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not allowed</Message></Error></ErrorResponse>"
        let sender = ScriptedSender([.answer(403, refusal)])
        let provider = try Self.assumeRole(sender)
        let error = await #expect(throws: CredentialsError.self) { try await provider.credentials() }
        #expect(error == .serviceError(service: "sts AssumeRole", code: "AccessDenied", message: "not allowed"))
        #expect(error.map { "\($0)" } == "sts AssumeRole refused: AccessDenied: not allowed")
        #expect(sender.sent.count == 1, "AccessDenied is not retried")
        let call = try #require(error?.cause(as: AWSCallError.self))
        #expect(call.awsCode == "AccessDenied" && call.status == 403 && call.attempts == 1 && call.service == "sts" && call.operation == "AssumeRole")
    }

    /// A caller tells an expired source session from a denial by the AWS code the failure
    /// keeps, without reading the message; a cancelled call is `Credentials.cancelled`.
    @Test func theAWSCodeAndCancellationSurviveTheBoundary() async throws {
        let expired = "<ErrorResponse><Error><Type>Sender</Type><Code>ExpiredToken</Code><Message>The security token included in the request is expired</Message></Error><RequestId>req-7</RequestId></ErrorResponse>"
        let sender = ScriptedSender([.answer(400, expired)])
        let provider = try Self.assumeRole(sender)
        let error = await #expect(throws: CredentialsError.self) { try await provider.credentials() }
        let call = try #require(error?.cause(as: AWSCallError.self))
        #expect(call.awsCode == "ExpiredToken" && call.requestId == "req-7" && call.code == "AWSClient.service")

        let cancelling = ScriptedSender([.failure(.cancelled)])
        let cancelled = try Self.assumeRole(cancelling)
        let stopped = await #expect(throws: CredentialsError.self) { try await cancelled.credentials() }
        #expect(stopped?.code == "Credentials.cancelled" && stopped?.cause(as: CancellationError.self) != nil && cancelling.sent.count == 1)
    }

    /// GetId once (the identity is kept), then GetCredentialsForIdentity per call; both unsigned
    /// JSON 1.1 calls.
    @Test func cognitoIdentityKeepsTheIdentityAndSendsUnsignedJSON() async throws {
        let sender = ScriptedSender([
            .answer(200, #"{"IdentityId":"eu-west-1:abc"}"#),
            .answer(200, #"{"IdentityId":"eu-west-1:abc","Credentials":{"AccessKeyId":"ASIAID","SecretKey":"id-secret","SessionToken":"id-token","Expiration":1893553445}}"#),
        ])
        let provider = try CognitoIdentityCredentialsProvider(
            identityPoolId: "eu-west-1:pool", region: "eu-west-1", endpoint: ServiceEndpoint(url: "https://identity.unit.test/"), http: sender)
        let first = try await provider.credentials()
        _ = try await provider.credentials()
        #expect(first.credentials.accessKeyId == "ASIAID" && first.expiration == Date(timeIntervalSince1970: 1_893_553_445))
        let targets = sender.sent.map { Self.header($0, "X-Amz-Target") }
        #expect(targets == ["AWSCognitoIdentityService.GetId", "AWSCognitoIdentityService.GetCredentialsForIdentity", "AWSCognitoIdentityService.GetCredentialsForIdentity"])
        #expect(sender.sent.allSatisfy { Self.header($0, "Authorization") == nil && Self.header($0, "Content-Type") == "application/x-amz-json-1.1" })
        #expect(String(decoding: sender.sent[1].body, as: UTF8.self).contains(#""IdentityId":"eu-west-1:abc""#))
    }

    /// IMDSv2: a token first (PUT, with its TTL header), then the role and its document, each
    /// GET carrying the token.
    @Test func instanceMetadataFetchesATokenThenTheRolesDocumentWithIt() async throws {
        let document = #"{"Code":"Success","AccessKeyId":"ASIAIMDS","SecretAccessKey":"imds-secret","Token":"imds-token","Expiration":"2030-01-02T03:04:05Z"}"#
        let sender = ScriptedSender([.answer(200, "unit-imds-token"), .answer(200, "unit-role\n"), .answer(200, document)])
        let settings = try InstanceMetadataSettings(environment: ["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://imds.unit.test/"])
        let credentials = try await InstanceMetadataCredentialsProvider(client: InstanceMetadataClient(settings: settings, http: sender)).credentials()
        #expect(credentials.credentials.accessKeyId == "ASIAIMDS" && credentials.source == "instance metadata role 'unit-role'")
        let sent = sender.sent
        #expect(sent.map(\.request.method) == [.put, .get, .get])
        #expect(sent.map(\.request.path) == ["/latest/api/token", "/latest/meta-data/iam/security-credentials/", "/latest/meta-data/iam/security-credentials/unit-role"])
        #expect(Self.header(sent[0], "x-aws-ec2-metadata-token-ttl-seconds") == "21600")
        #expect(sent.dropFirst().allSatisfy { Self.header($0, "x-aws-ec2-metadata-token") == "unit-imds-token" })
    }
}

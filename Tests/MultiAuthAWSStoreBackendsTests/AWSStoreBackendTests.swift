import Foundation
import HTTPTypes
import MultiAuthAWSStoreBackends
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthStore
import MultiAuthTesting
import Testing

/// The AWS store backends' reads and refusals against in-process Secrets Manager and SSM
/// services that speak their JSON 1.1 protocols (request and answer shapes from the two API
/// references: `secretsmanager.GetSecretValue` with `SecretId` and `VersionStage`,
/// `AmazonSSM.GetParameter` with `Name` and `WithDecryption`). Conditional writes need a
/// stateful service: CredentialChainTests run them against moto.
struct AWSStoreBackendTests {
    static let credentials = StaticCredentialsProvider(
        AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
    static let image = Array("MultiAuth ciphertext".utf8)

    static func backend(_ url: String, _ fake: AWSServiceFake) throws -> AWSStoreBackend {
        try AWSStoreBackend(url: url, credentials: credentials, http: fake, environment: [:])
    }

    static func json(_ sent: ScriptedSender.Sent) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(sent.body)) else { return [:] }
        return fields
    }

    static func target(_ sent: ScriptedSender.Sent) -> String? { sent.request.headerFields[HTTPField.Name("X-Amz-Target")!] }

    @Test func aSecretsManagerStoreReadsTheCurrentBinaryValue() async throws {
        let fake = AWSServiceFake(wire: .json)
        fake.answer("GetSecretValue", with: #"{"Name":"team","VersionId":"v-1","SecretBinary":"\#(Data(Self.image).base64EncodedString())"}"#)
        let read = try #require(try await Self.backend("secretsmanager://us-west-2/team", fake).read())
        #expect(read.bytes == Self.image && read.version == StoreVersion("v-1"))
        let sent = try #require(fake.sent.first)
        #expect(sent.request.authority == "secretsmanager.us-west-2.amazonaws.com")
        #expect(Self.target(sent) == "secretsmanager.GetSecretValue")
        #expect(try Self.json(sent) == ["SecretId": .string("team"), "VersionStage": .string("AWSCURRENT")])
    }

    @Test func aMissingSecretOrParameterIsNoStore() async throws {
        let secrets = AWSServiceFake(wire: .json)
        secrets.script("GetSecretValue", [.refuse(code: "ResourceNotFoundException", message: "Secrets Manager can't find the specified secret.")])
        #expect(try await Self.backend("secretsmanager://us-west-2/team", secrets).read() == nil)
        let ssm = AWSServiceFake(wire: .json)
        ssm.script("GetParameter", [.refuse(code: "ParameterNotFound", message: "")])
        #expect(try await Self.backend("ssm://us-west-2/team", ssm).read() == nil)
        #expect(Self.target(try #require(ssm.sent.first)) == "AmazonSSM.GetParameter")
        #expect(try Self.json(try #require(ssm.sent.first)) == ["Name": .string("/team"), "WithDecryption": .bool(true)])
    }

    /// The checkpoint `/team` says version 3; the write `/team.write-4` above it is newer, so it
    /// is what the store holds (the scheme `ParameterStoreItems` documents).
    @Test func anSSMStoreFollowsWritesAboveItsCheckpoint() async throws {
        let older = Data(Array("older".utf8)).base64EncodedString(), newer = Data(Self.image).base64EncodedString()
        let ssm = AWSServiceFake(wire: .json)
        ssm.answer("GetParameter", with: #"{"Parameter":{"Name":"/team","Type":"SecureString","Value":"3:\#(older)","Version":7}}"#)
        ssm.answer("GetParameters", with: #"{"Parameters":[{"Name":"/team.write-4","Type":"SecureString","Value":"4:\#(newer)","Version":1}],"InvalidParameters":[]}"#)
        let read = try #require(try await Self.backend("ssm://eu-west-1/team", ssm).read())
        #expect(read.bytes == Self.image)
        let names = try Self.json(ssm.sent[1])["Names"]
        #expect(names == .array((3...12).map { .string("/team.write-\($0)") }))
    }

    @Test func aRefusalIsAReadFailureNamingTheStoreAndCode() async throws {
        let fake = AWSServiceFake(wire: .json)
        fake.script("GetSecretValue", [.refuse(code: "AccessDeniedException", message: "User is not authorized to perform GetSecretValue")])
        await #expect {
            _ = try await Self.backend("secretsmanager://us-west-2/team", fake).read()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == "Store.readFailed" && error.message.contains("secretsmanager://us-west-2/team")
                && error.message.contains("AccessDeniedException") && !error.message.contains("wJalrXUtnFEMI")
        }
        #expect(fake.attempts("GetSecretValue") == 1)
    }

    /// botocore's standard mode: two throttles, then the answer, in three attempts.
    @Test func throttlingIsRetried() async throws {
        let fake = AWSServiceFake(wire: .json)
        fake.answer("GetSecretValue", with: #"{"Name":"team","VersionId":"v-2","SecretBinary":"\#(Data(Self.image).base64EncodedString())"}"#)
        fake.script("GetSecretValue", [.throttle, .throttle])
        #expect(try await Self.backend("secretsmanager://us-west-2/team", fake).read()?.bytes == Self.image)
        #expect(fake.attempts("GetSecretValue") == 3)
    }

    @Test func aSecretWithoutABinaryValueIsCorruptNotEmpty() async throws {
        let fake = AWSServiceFake(wire: .json)
        fake.answer("GetSecretValue", with: #"{"Name":"team","VersionId":"v-1","SecretString":"edited by hand"}"#)
        await #expect { _ = try await Self.backend("secretsmanager://us-west-2/team", fake).read() } throws: {
            ($0 as? StoreError)?.code == "Store.corrupted"
        }
    }

    @Test(arguments: ["secretsmanager://us-west-2", "secretsmanager:///team", "s3://us-west-2/team", "ssm://not a region/team"])
    func aLocationThatIsNotOneIsRefusedBeforeAnyCall(url: String) async throws {
        let fake = AWSServiceFake(wire: .json)
        #expect { _ = try Self.backend(url, fake) } throws: { ($0 as? StoreError)?.code == "Store.readFailed" }
        #expect(fake.sent.isEmpty)
    }
}

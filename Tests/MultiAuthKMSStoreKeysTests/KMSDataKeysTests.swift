import Foundation
import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthKMSStoreKeys
import MultiAuthSigV4
import MultiAuthStore
import MultiAuthTesting
import Testing

/// KMS data keys against an in-process KMS that speaks its JSON 1.1 protocol. The request
/// shapes are the KMS API reference's: `X-Amz-Target: TrentService.GenerateDataKey` with
/// `KeyId` and `KeySpec: AES_256`, `TrentService.Decrypt` with the base64 `CiphertextBlob`,
/// answers with base64 `Plaintext` and `CiphertextBlob`.
struct KMSDataKeysTests {
    static let credentials = StaticCredentialsProvider(
        AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
    static let plain = [UInt8](repeating: 7, count: 32)
    static let wrapped = Array("wrapped-under-the-kms-key".utf8)

    static func kms() -> AWSServiceFake {
        let fake = AWSServiceFake(wire: .json)
        let plain = Data(Self.plain).base64EncodedString(), wrapped = Data(Self.wrapped).base64EncodedString()
        fake.answer("GenerateDataKey", with: #"{"CiphertextBlob":"\#(wrapped)","Plaintext":"\#(plain)","KeyId":"alias/store"}"#)
        fake.answer("Decrypt", with: #"{"Plaintext":"\#(plain)","KeyId":"alias/store"}"#)
        return fake
    }

    static func keys(_ fake: AWSServiceFake) throws -> KMSDataKeys {
        try KMSDataKeys(keyId: "alias/store", region: "eu-west-1", credentials: credentials, environment: [:], http: fake)
    }

    static func json(_ sent: ScriptedSender.Sent) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(sent.body))
    }

    @Test func aKeyIsGeneratedAndUnwrappedAsKMSDocumentsIt() async throws {
        let fake = Self.kms()
        let made = try await Self.keys(fake).generate()
        #expect(made.key == Self.plain && made.wrapped == Self.wrapped)
        #expect(try await Self.keys(fake).unwrap(made.wrapped) == Self.plain)

        let (generate, decrypt) = (fake.sent[0], fake.sent[1])
        #expect(generate.request.authority == "kms.eu-west-1.amazonaws.com")
        #expect(generate.request.headerFields[HTTPField.Name("X-Amz-Target")!] == "TrentService.GenerateDataKey")
        #expect(try Self.json(generate) == ["KeyId": "alias/store", "KeySpec": "AES_256"])
        #expect(decrypt.request.headerFields[HTTPField.Name("X-Amz-Target")!] == "TrentService.Decrypt")
        #expect(try Self.json(decrypt) == ["KeyId": "alias/store", "CiphertextBlob": Data(Self.wrapped).base64EncodedString()])
        let authorization = try #require(generate.request.headerFields[.authorization])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") && authorization.contains("/eu-west-1/kms/aws4_request"))
    }

    @Test func aRefusalNamesTheActionAndKMSCode() async throws {
        let fake = Self.kms()
        fake.script("Decrypt", [.refuse(code: "IncorrectKeyException", message: "The key ID in the request does not identify a CMK")])
        await #expect {
            _ = try await Self.keys(fake).unwrap(Self.wrapped)
        } throws: { error in
            let error = try #require(error as? KMSKeyError)
            return error.code == "KMSKey.refused" && error.message.contains("Decrypt") && error.message.contains("IncorrectKeyException")
                && !error.message.contains("wJalrXUtnFEMI") && error.cause(as: AWSCallError.self)?.awsCode == "IncorrectKeyException"
        }
        #expect(fake.attempts("Decrypt") == 1)
    }

    /// botocore's standard mode: 500 is tried three times, then reported.
    @Test func serverErrorsAreRetriedThenReported() async throws {
        let fake = Self.kms()
        fake.script("GenerateDataKey", [.serverError, .serverError, .serverError, .serverError])
        await #expect { _ = try await Self.keys(fake).generate() } throws: { ($0 as? KMSKeyError)?.code == "KMSKey.refused" }
        #expect(fake.attempts("GenerateDataKey") == 3)
    }

    @Test func aGarbledAnswerIsMalformedNotAKey() async throws {
        let fake = AWSServiceFake(wire: .json)
        fake.answer("Decrypt", with: #"{"Plaintext":"not base64 ***"}"#)
        await #expect { _ = try await Self.keys(fake).unwrap(Self.wrapped) } throws: { ($0 as? KMSKeyError)?.code == "KMSKey.malformedAnswer" }
    }

    /// The ARN format of the AWS General Reference: `arn:PARTITION:kms:REGION:ACCOUNT:key/ID`.
    @Test func theRegionComesFromAKeyARN() {
        #expect(KMSDataKeys.region(ofKeyARN: "arn:aws:kms:eu-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab") == "eu-central-1")
        #expect(KMSDataKeys.region(ofKeyARN: "arn:aws-cn:kms:cn-north-1:111122223333:alias/store") == "cn-north-1")
        #expect(KMSDataKeys.region(ofKeyARN: "alias/store") == nil)
        #expect(KMSDataKeys.region(ofKeyARN: "1234abcd-12ab-34cd-56ef-1234567890ab") == nil)
        #expect(KMSDataKeys.region(ofKeyARN: "arn:aws:s3:::bucket") == nil)
    }

    /// A new store gets its wrapped key beside it (0600); opening it again asks KMS to unwrap
    /// exactly that key; a second creation over the store is refused.
    @Test func aStoreKeepsOnlyTheWrappedKey() async throws {
        let folder = TemporaryFolder()
        let backend = FileStoreBackend(path: folder.file("creds.store"))
        let fake = Self.kms()
        #expect(try await Self.keys(fake).storeKey(for: backend, creating: true) == Self.plain)
        let attachment = folder.file("creds.store.kms-key")
        let text = try String(contentsOfFile: attachment, encoding: .utf8)
        #expect(text == Data(Self.wrapped).base64EncodedString() + "\n")
        #expect((try FileManager.default.attributesOfItem(atPath: attachment)[.posixPermissions] as? Int) == 0o600)

        #expect(try await Self.keys(fake).storeKey(for: backend, creating: false) == Self.plain)
        #expect(try Self.json(fake.sent.last!)["CiphertextBlob"] == Data(Self.wrapped).base64EncodedString())
    }
}

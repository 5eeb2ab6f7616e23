import CredentialProviders
import HTTPTransport
import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Store items as AWS Secrets Manager secrets: the image in `SecretBinary`, the version
/// the secret's `VersionId` staged `AWSCURRENT`.
struct SecretsManagerItems: AWSItemService {
    let region: String
    let call: AWSJSONCall

    var location: String { "secretsmanager://\(region)/" }

    func itemName(_ name: String, suffix: String) -> String { suffix.isEmpty ? name : name + "." + suffix }

    func value(_ name: String) async throws(AWSJSONCallError) -> (bytes: [UInt8], version: String)? {
        struct Answer: Decodable { let SecretBinary: String?, VersionId: String }
        let answer: Answer
        do { answer = try await call.send("GetSecretValue", ["SecretId": .string(name)], as: Answer.self) } catch {
            if error.refusalCode == "ResourceNotFoundException" { return nil }
            throw error
        }
        guard let binary = answer.SecretBinary, let bytes = try? Base64.decode(binary) else {
            throw .malformedAnswer("the secret \(name) holds no binary value (was it edited by hand?)")
        }
        return (bytes, answer.VersionId)
    }

    func version(_ name: String) async throws(AWSJSONCallError) -> String? {
        struct Answer: Decodable { let VersionIdsToStages: [String: [String]]? }
        let answer: Answer
        do { answer = try await call.send("DescribeSecret", ["SecretId": .string(name)], as: Answer.self) } catch {
            if error.refusalCode == "ResourceNotFoundException" { return nil }
            throw error
        }
        return answer.VersionIdsToStages?.first { $0.value.contains("AWSCURRENT") }?.key
    }

    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) -> Bool {
        do {
            _ = try await call.send(
                "CreateSecret",
                ["Name": .string(name), "SecretBinary": .string(Base64.encode(bytes)), "Description": .string("MultiAuth credential store (encrypted)")],
                as: AWSJSONCallError.Nothing.self)
            return true
        } catch {
            if error.refusalCode == "ResourceExistsException" { return false }
            throw error
        }
    }

    func put(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) {
        _ = try await call.send(
            "PutSecretValue",
            ["SecretId": .string(name), "SecretBinary": .string(Base64.encode(bytes)), "ClientRequestToken": .string(UUID().uuidString)],
            as: AWSJSONCallError.Nothing.self)
    }

    func delete(_ name: String) async throws(AWSJSONCallError) {
        _ = try await call.send(
            "DeleteSecret", ["SecretId": .string(name), "ForceDeleteWithoutRecovery": .bool(true)], as: AWSJSONCallError.Nothing.self)
    }
}

import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Store items as AWS Secrets Manager secrets: the image in `SecretBinary`, the version
/// the secret's `VersionId` staged `AWSCURRENT`.
struct SecretsManagerItems: AWSItemService {
    let region: String
    let call: AWSJSONService

    var location: String { "secretsmanager://\(region)/" }

    func itemName(_ name: String, suffix: String) -> String { suffix.isEmpty ? name : name + "." + suffix }

    func value(_ name: String) async throws(AWSCallError) -> (bytes: [UInt8], version: String)? {
        struct Answer: Decodable { let SecretBinary: String?, VersionId: String }
        let answer: Answer
        // The stage named, though it is the default: moto (the tests' peer) answers a call
        // without it with the version first made current, not the one the stage moved to.
        do {
            answer = try await call.send("GetSecretValue", ["SecretId": .string(name), "VersionStage": .string("AWSCURRENT")], as: Answer.self)
        } catch {
            if error.refusalCode == "ResourceNotFoundException" { return nil }
            throw error
        }
        guard let binary = answer.SecretBinary, let bytes = try? Base64.decode(binary) else {
            throw .malformedAnswer("the secret \(name) holds no binary value (was it edited by hand?)")
        }
        return (bytes, answer.VersionId)
    }

    func version(_ name: String) async throws(AWSCallError) -> String? {
        struct Answer: Decodable { let VersionIdsToStages: [String: [String]]? }
        let answer: Answer
        do { answer = try await call.send("DescribeSecret", ["SecretId": .string(name)], as: Answer.self) } catch {
            if error.refusalCode == "ResourceNotFoundException" { return nil }
            throw error
        }
        return answer.VersionIdsToStages?.first { $0.value.contains("AWSCURRENT") }?.key
    }

    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSCallError) -> String? {
        struct Answer: Decodable { let VersionId: String }
        do {
            return try await call.send(
                "CreateSecret",
                [
                    "Name": .string(name), "SecretBinary": .string(Base64.encode(bytes)), "Description": .string("MultiAuth credential store (encrypted)"),
                    "ClientRequestToken": .string(UUID().uuidString.lowercased()),  // a retried call is the same call
                ],
                as: Answer.self
            ).VersionId
        } catch {
            if error.refusalCode == "ResourceExistsException" { return nil }
            throw error
        }
    }

    /// The new value goes in as a version staged only `MULTIAUTH_PENDING`; then `AWSCURRENT`
    /// moves to it from `version`, which the service refuses when `AWSCURRENT` is no longer
    /// on `version`. A refused version stays behind without `AWSCURRENT`, deprecated.
    func swap(_ name: String, _ bytes: [UInt8], expecting version: String) async throws(AWSCallError) -> String? {
        let next = UUID().uuidString.lowercased()
        _ = try await call.send(
            "PutSecretValue",
            [
                "SecretId": .string(name), "SecretBinary": .string(Base64.encode(bytes)), "ClientRequestToken": .string(next),
                "VersionStages": .array([.string(Self.pendingStage)]),
            ],
            as: AWSJSONService.Nothing.self)
        do {
            _ = try await call.send(
                "UpdateSecretVersionStage",
                [
                    "SecretId": .string(name), "VersionStage": .string("AWSCURRENT"), "RemoveFromVersionId": .string(version),
                    "MoveToVersionId": .string(next),
                ],
                as: AWSJSONService.Nothing.self)
            return next
        } catch {
            // Refused: the stage moved on. A retried call whose first try did move it finds
            // it on our version.
            if error.refusalCode == "InvalidParameterException" { return try await self.version(name) == next ? next : nil }
            throw error
        }
    }

    /// The staging label of a value written but not yet current.
    static let pendingStage = "MULTIAUTH_PENDING"
}

import CredentialProviders
import HTTPTransport
import MultiAuthCore
import MultiAuthCrypto

/// Store items as SSM Parameter Store `SecureString` parameters: the image as base64 text
/// (a parameter holds text), the version the parameter's `Version`. A standard parameter
/// holds 4 KB and an advanced one 8 KB: the tier is chosen by size, and an image larger than
/// that is refused before anything is written.
struct ParameterStoreItems: AWSItemService {
    let region: String
    let call: AWSJSONCall

    static let standardLimit = 4096
    static let advancedLimit = 8192

    var location: String { "ssm://\(region)/" }

    /// Parameter names with a `/` are fully qualified: they start with one.
    func itemName(_ name: String, suffix: String) -> String { "/" + (suffix.isEmpty ? name : name + "." + suffix) }

    func value(_ name: String) async throws(AWSJSONCallError) -> (bytes: [UInt8], version: String)? {
        guard let parameter = try await parameter(name, decrypted: true) else { return nil }
        guard let bytes = try? Base64.decode(parameter.Value) else {
            throw .malformedAnswer("the parameter \(name) is not base64 (was it edited by hand?)")
        }
        return (bytes, String(parameter.Version))
    }

    func version(_ name: String) async throws(AWSJSONCallError) -> String? {
        try await parameter(name, decrypted: false).map { String($0.Version) }
    }

    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) -> Bool {
        do {
            try await write(name, bytes, overwrite: false)
            return true
        } catch {
            if error.refusalCode == "ParameterAlreadyExists" { return false }
            throw error
        }
    }

    func put(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) { try await write(name, bytes, overwrite: true) }

    func delete(_ name: String) async throws(AWSJSONCallError) {
        _ = try await call.send("DeleteParameter", ["Name": .string(name)], as: AWSJSONCallError.Nothing.self)
    }

    private struct Parameter: Decodable { let Value: String, Version: Int64 }

    private func parameter(_ name: String, decrypted: Bool) async throws(AWSJSONCallError) -> Parameter? {
        struct Answer: Decodable { let Parameter: Parameter }
        do {
            return try await call.send("GetParameter", ["Name": .string(name), "WithDecryption": .bool(decrypted)], as: Answer.self).Parameter
        } catch {
            if error.refusalCode == "ParameterNotFound" { return nil }
            throw error
        }
    }

    private func write(_ name: String, _ bytes: [UInt8], overwrite: Bool) async throws(AWSJSONCallError) {
        let text = Base64.encode(bytes)
        guard text.utf8.count <= Self.advancedLimit else {
            throw .invalidSetting(
                "the store is \(text.utf8.count) characters as base64, more than an SSM parameter holds (\(Self.advancedLimit)); keep it in Secrets Manager or PostgreSQL")
        }
        _ = try await call.send(
            "PutParameter",
            [
                "Name": .string(name), "Value": .string(text), "Type": .string("SecureString"), "Overwrite": .bool(overwrite),
                "Tier": .string(text.utf8.count <= Self.standardLimit ? "Standard" : "Advanced"),
                "Description": .string("MultiAuth credential store (encrypted)"),
            ],
            as: AWSJSONCallError.Nothing.self)
    }
}

import CredentialProviders
import KMSStoreKeys
import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--kms-key-id`: the store's data key from AWS KMS, through the default chain's credentials.
/// Exit 3 when KMS refuses (a wrong or disabled key, one the caller may not use), as for a
/// wrong passphrase; 1 otherwise.
enum KMSStoreKey {
    static func key(_ keyId: String, storePath: String, creating: Bool) async throws -> [UInt8] {
        guard let region = try await region(for: keyId) else {
            throw CLIError("--kms-key-id", "no region: give the key's ARN, or set AWS_REGION")
        }
        let http = CommandTimeout.transport()
        do throws(KMSKeyError) {
            let keys = try KMSDataKeys(keyId: keyId, region: region, credentials: DefaultCredentialsChain.make(http: http), http: http)
            guard creating else { return try await keys.unwrap(try WrappedKeyFile.read(forStore: storePath)) }
            guard !FileManager.default.fileExists(atPath: storePath) else {
                throw KMSKeyError.invalidSetting("a store already exists at \(storePath); it was left as it is")
            }
            let made = try await keys.generate()
            try WrappedKeyFile.create(made.wrapped, forStore: storePath)
            return made.key
        } catch {
            var failure = CLIError("--kms-key-id", error)
            if case .refused = error { failure.exitCode = 3 }
            throw failure
        }
    }

    private static func region(for keyId: String) async throws -> String? {
        if let region = KMSDataKeys.region(ofKeyARN: keyId) { return region }
        return try await ChainCredentials.region(nil, profile: nil)
    }
}

import MultiAuthCore
import MultiAuthCredentials
import MultiAuthKMSStoreKeys
import MultiAuthStore

/// `--kms-key-id`: the store's data key from AWS KMS, through the default chain's credentials.
/// Exit 3 when KMS refuses (a wrong or disabled key, one the caller may not use), as for a
/// wrong passphrase; 1 otherwise.
enum KMSStoreKey {
    static func key(_ keyId: String, backend: any StoreBackend, creating: Bool) async throws -> [UInt8] {
        guard let region = try await region(for: keyId) else {
            throw CLIError("--kms-key-id", "no region: give the key's ARN, or set AWS_REGION")
        }
        let http = CommandTimeout.transport()
        let keys: KMSDataKeys
        do throws(KMSKeyError) {
            keys = try KMSDataKeys(keyId: keyId, region: region, credentials: DefaultCredentialsChain.make(http: http), http: http)
        } catch {
            throw CLIError("--kms-key-id", error)
        }
        do { return try await keys.storeKey(for: backend, creating: creating) } catch let error as KMSKeyError { throw failure(error) }
    }

    private static func failure(_ error: KMSKeyError) -> CLIError {
        var failure = CLIError("--kms-key-id", error)
        if case .refused = error.kind { failure.exitCode = 3 }
        return failure
    }

    private static func region(for keyId: String) async throws -> String? {
        if let region = KMSDataKeys.region(ofKeyARN: keyId) { return region }
        return try await ChainCredentials.region(nil, profile: nil)
    }
}

import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthStore

/// Where a store keyed by KMS keeps its wrapped data key: the store backend's attachment
/// `kms-key` (beside a store file, `STORE.kms-key`, mode 0600), as base64 text. It is useless
/// without KMS, so it can sit beside the store on any backend.
public enum WrappedKeyAttachment {
    /// The attachment's name.
    public static let name = "kms-key"

    /// Saves `wrapped` for a new store; one already there is never replaced (the store it
    /// opens would be lost).
    public static func create(_ wrapped: [UInt8], in backend: any StoreBackend) async throws(StoreError) {
        try await backend.createAttachment(name, Array((Base64.encode(wrapped) + "\n").utf8))
    }

    /// The wrapped key of the store `backend` holds.
    public static func read(from backend: any StoreBackend) async throws(StoreError) -> [UInt8] {
        guard let text = try await backend.readAttachment(name) else {
            throw .keyUnavailable("no wrapped KMS key beside \(backend.location) (the store was not made with --kms-key-id)")
        }
        do { return try Base64.decode(String(decoding: text, as: UTF8.self).trimmedWhitespace) } catch {
            throw .corrupted(path: backend.location + " (\(name))", reason: "the wrapped key is not base64")
        }
    }
}

public import MultiAuthCore

/// Why a store operation failed. Messages name the store (its file, or its backend's location
/// without a password) and the problem, never a secret.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store file does not exist.
    case storeMissing(path: String)
    /// `init` found a store already there; it is never overwritten.
    case storeExists(path: String)
    /// No item for (service, account).
    case itemNotFound(service: String, account: String)
    /// The passphrase or key file does not open this store.
    case wrongPassphrase(path: String)
    /// The file is damaged or was altered; it is left untouched.
    case corrupted(path: String, reason: String)
    /// The file was written by a newer format version.
    case unsupportedVersion(path: String, version: Int)
    /// The header names a key derivation this version does not know.
    case unknownKDF(path: String, identifier: Int)
    /// The header's KDF parameters exceed the caps (a crafted file could cost minutes or gigabytes).
    case unsafeKDFParameters(path: String, parameters: String)
    /// The item was made for another environment; `fields` names what differs.
    case environmentMismatch(service: String, account: String, fields: [String])
    /// A file or folder is accessible to others, owned by someone else, or a symlink.
    case insecurePermissions(path: String, problem: String, fix: String)
    /// Another process held the lock longer than the timeout.
    case locked(path: String, waitedSeconds: Double)
    /// Reading failed.
    case readFailed(path: String, reason: String)
    /// Writing failed; the previous content is intact.
    case writeFailed(path: String, reason: String)
    /// The key material could not be obtained or is malformed.
    case keyUnavailable(String)
    /// Another writer replaced the store after it was read; nothing was written.
    case conflict(path: String)

    public var description: String {
        switch self {
        case .storeMissing(let path): "no store at \(path)"
        case .storeExists(let path): "a store already exists at \(path); it was left as it is"
        case .itemNotFound(let service, let account): "no item for service '\(service)', account '\(account)'"
        case .wrongPassphrase(let path): "wrong passphrase or key file for \(path)"
        case .corrupted(let path, let reason):
            "\(path) is damaged or was altered (\(reason)); it was left untouched: restore it from a backup or move it away"
        case .unsupportedVersion(let path, let version):
            "\(path) has format version \(version), newer than this MultiAuth supports (1)"
        case .unknownKDF(let path, let identifier): "\(path) uses an unknown key derivation (\(identifier))"
        case .unsafeKDFParameters(let path, let parameters):
            "\(path) asks for key-derivation parameters beyond the safe caps (\(parameters))"
        case .environmentMismatch(let service, let account, let fields):
            "item '\(service)'/'\(account)' was stored for another environment (fields that differ: "
                + "\(fields.joined(separator: ", ")))"
        case .insecurePermissions(let path, let problem, let fix): "\(path) \(problem): \(fix)"
        case .locked(let path, let waited):
            "\(path) is locked by another process (waited \((waited * 10).rounded() / 10) s)"
        case .readFailed(let path, let reason): "cannot read \(path): \(reason)"
        case .writeFailed(let path, let reason): "cannot write \(path): \(reason); the previous content is intact"
        case .keyUnavailable(let reason): reason
        case .conflict(let path): "\(path) was changed by another writer after it was read; nothing was written"
        }
    }
}

extension StoreError: CodedError {
    /// `Store.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .storeMissing: "Store.storeMissing"
        case .storeExists: "Store.storeExists"
        case .itemNotFound: "Store.itemNotFound"
        case .wrongPassphrase: "Store.wrongPassphrase"
        case .corrupted: "Store.corrupted"
        case .unsupportedVersion: "Store.unsupportedVersion"
        case .unknownKDF: "Store.unknownKDF"
        case .unsafeKDFParameters: "Store.unsafeKDFParameters"
        case .environmentMismatch: "Store.environmentMismatch"
        case .insecurePermissions: "Store.insecurePermissions"
        case .locked: "Store.locked"
        case .readFailed: "Store.readFailed"
        case .writeFailed: "Store.writeFailed"
        case .keyUnavailable: "Store.keyUnavailable"
        case .conflict: "Store.conflict"
        }
    }
}

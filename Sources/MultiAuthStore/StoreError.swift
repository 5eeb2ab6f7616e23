public import MultiAuthCore

/// Why a store operation failed. Messages name the store (its file, or its backend's location
/// without a password) and the problem, never a secret.
public struct StoreError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind
    /// The error behind a case that holds only words: the failed AWS call (an `AWSCallError`) behind a Secrets Manager or Parameter Store failure.
    package var cause: UnderlyingError?

    /// The error for `kind`, caused by `cause`.
    package init(_ kind: Kind, cause: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.cause = cause.map { UnderlyingError($0) }
    }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one (the failed AWS call (an `AWSCallError`) behind a Secrets Manager or Parameter Store failure).
    public var underlying: (any Error & Sendable)? { cause?.error ?? kind.underlying }

    /// Two errors are equal when they report the same failure; their causes are not compared.
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.kind == rhs.kind }
    public var description: String { message }
}

extension StoreError {
    /// The store file does not exist.
    public static func storeMissing(path: String) -> StoreError { StoreError(.storeMissing(path: path)) }
    /// `init` found a store already there; it is never overwritten.
    public static func storeExists(path: String) -> StoreError { StoreError(.storeExists(path: path)) }
    /// No item for (service, account).
    public static func itemNotFound(service: String, account: String) -> StoreError {
        StoreError(.itemNotFound(service: service, account: account))
    }
    /// The passphrase or key file does not open this store.
    public static func wrongPassphrase(path: String) -> StoreError { StoreError(.wrongPassphrase(path: path)) }
    /// The file is damaged or was altered; it is left untouched.
    public static func corrupted(path: String, reason: String) -> StoreError {
        StoreError(.corrupted(path: path, reason: reason))
    }
    /// The file was written by a newer format version.
    public static func unsupportedVersion(path: String, version: Int) -> StoreError {
        StoreError(.unsupportedVersion(path: path, version: version))
    }
    /// The header names a key derivation this version does not know.
    public static func unknownKDF(path: String, identifier: Int) -> StoreError {
        StoreError(.unknownKDF(path: path, identifier: identifier))
    }
    /// The header's KDF parameters exceed the caps (a crafted file could cost minutes or gigabytes).
    public static func unsafeKDFParameters(path: String, parameters: String) -> StoreError {
        StoreError(.unsafeKDFParameters(path: path, parameters: parameters))
    }
    /// The item was made for another environment; `fields` names what differs.
    public static func environmentMismatch(service: String, account: String, fields: [String]) -> StoreError {
        StoreError(.environmentMismatch(service: service, account: account, fields: fields))
    }
    /// A file or folder is accessible to others, owned by someone else, or a symlink.
    public static func insecurePermissions(path: String, problem: String, fix: String) -> StoreError {
        StoreError(.insecurePermissions(path: path, problem: problem, fix: fix))
    }
    /// Another process held the lock longer than the timeout.
    public static func locked(path: String, waitedSeconds: Double) -> StoreError {
        StoreError(.locked(path: path, waitedSeconds: waitedSeconds))
    }
    /// Reading failed.
    public static func readFailed(path: String, reason: String) -> StoreError {
        StoreError(.readFailed(path: path, reason: reason))
    }
    /// Writing failed; the previous content is intact.
    public static func writeFailed(path: String, reason: String) -> StoreError {
        StoreError(.writeFailed(path: path, reason: reason))
    }
    /// The key material could not be obtained or is malformed.
    public static func keyUnavailable(_ value: String) -> StoreError { StoreError(.keyUnavailable(value)) }
    /// Another writer replaced the store after it was read; nothing was written.
    public static func conflict(path: String) -> StoreError { StoreError(.conflict(path: path)) }
}

extension StoreError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``StoreError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case storeMissing(path: String)
        case storeExists(path: String)
        case itemNotFound(service: String, account: String)
        case wrongPassphrase(path: String)
        case corrupted(path: String, reason: String)
        case unsupportedVersion(path: String, version: Int)
        case unknownKDF(path: String, identifier: Int)
        case unsafeKDFParameters(path: String, parameters: String)
        case environmentMismatch(service: String, account: String, fields: [String])
        case insecurePermissions(path: String, problem: String, fix: String)
        case locked(path: String, waitedSeconds: Double)
        case readFailed(path: String, reason: String)
        case writeFailed(path: String, reason: String)
        case keyUnavailable(String)
        case conflict(path: String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
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
}

extension StoreError.Kind {
    /// `Store.` and the case's name, fixed once published.
    package var code: ErrorCode {
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

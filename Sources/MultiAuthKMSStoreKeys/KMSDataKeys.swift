import MultiAuthAWSClient
public import MultiAuthCore
public import MultiAuthCredentials
import MultiAuthCrypto
public import MultiAuthHTTP
public import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store key that AWS KMS makes and guards: `GenerateDataKey` gives a fresh 256-bit key and
/// the same key wrapped under the KMS key; only the wrapped form is kept (beside the store),
/// and `Decrypt` unwraps it when the store opens. A host with an IAM role then needs no key
/// file and no passphrase. Calls are signed with the credentials given (the default chain's),
/// at the endpoint botocore would use (`AWS_ENDPOINT_URL_KMS`, `AWS_ENDPOINT_URL` honoured).
public struct KMSDataKeys: Sendable {
    let keyId: String
    let call: AWSJSONService

    /// Keys under the KMS key `keyId` (an id, alias or ARN) in `region`.
    /// - Throws: ``KMSKeyError/invalidSetting(_:)`` for a region that is not one.
    public init(
        keyId: String, region: String, credentials: any CredentialsProvider, environment: [String: String]? = nil, http: any HTTPSender
    ) throws(KMSKeyError) {
        self.keyId = keyId
        do throws(AWSCallError) {
            let client = try AWSClient(service: "kms", region: region, environment: environment, http: http)
            call = AWSJSONService(client: client, targetPrefix: "TrentService", keys: credentials.signingKeys)
        } catch {
            throw KMSKeyError(error)
        }
    }

    /// The region a key ARN names (`arn:aws:kms:REGION:…`), or nil for an id or alias.
    public static func region(ofKeyARN keyId: String) -> String? {
        let parts = keyId.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 6, parts[0] == "arn", parts[2] == "kms", !parts[3].isEmpty else { return nil }
        return String(parts[3])
    }

    /// A fresh data key and its wrapped form.
    public func generate() async throws(KMSKeyError) -> (key: [UInt8], wrapped: [UInt8]) {
        struct Answer: Decodable { let CiphertextBlob: String, Plaintext: String }
        let answer = try await send("GenerateDataKey", ["KeyId": .string(keyId), "KeySpec": .string("AES_256")], as: Answer.self)
        return (try decoded(answer.Plaintext, "Plaintext"), try decoded(answer.CiphertextBlob, "CiphertextBlob"))
    }

    /// The key `wrapped` holds, unwrapped by KMS (which must find it was made under this key).
    public func unwrap(_ wrapped: [UInt8]) async throws(KMSKeyError) -> [UInt8] {
        struct Answer: Decodable { let Plaintext: String }
        let answer = try await send(
            "Decrypt", ["KeyId": .string(keyId), "CiphertextBlob": .string(Base64.encode(wrapped))], as: Answer.self)
        return try decoded(answer.Plaintext, "Plaintext")
    }

    /// The data key of the store `backend` holds. With `creating`, a new key from KMS whose
    /// wrapped form is attached beside the store, which must not exist yet; otherwise the
    /// attached wrapped key, unwrapped by KMS. The plain key is never stored.
    /// - Throws: ``KMSKeyError`` from KMS; `StoreError` from the backend
    ///   (``StoreError/storeExists(path:)`` when creating over a store).
    public func storeKey(for backend: any StoreBackend, creating: Bool) async throws -> [UInt8] {
        guard creating else { return try await unwrap(try await WrappedKeyAttachment.read(from: backend)) }
        guard try await backend.version() == nil else { throw StoreError.storeExists(path: backend.location) }
        let made = try await generate()
        try await WrappedKeyAttachment.create(made.wrapped, in: backend)
        return made.key
    }

    private func decoded(_ text: String, _ field: String) throws(KMSKeyError) -> [UInt8] {
        do { return try Base64.decode(text) } catch { throw .malformedAnswer("\(field) is not base64") }
    }

    private func send<Answer: Decodable>(_ action: String, _ fields: [String: JSONValue], as type: Answer.Type) async throws(KMSKeyError) -> Answer {
        do throws(AWSCallError) { return try await call.send(action, fields, as: type) } catch { throw KMSKeyError(error) }
    }
}

extension KMSKeyError {
    /// KMS's failure, the call kept as the cause.
    init(_ error: AWSCallError) {
        let kind: Kind = switch error.kind {
        case .invalidSetting: .invalidSetting(error.serviceMessage)
        case .credentials: .credentials(error.underlying as? CredentialsError ?? .notFound(error.serviceMessage))
        case .transport: .unreachable(error.serviceMessage)
        case .cancelled: .cancelled(action: error.operation)
        case .service: .refused(action: error.operation, code: error.awsCode?.rawValue ?? "HTTP \(error.status ?? 0)", message: error.serviceMessage)
        case .malformedAnswer: .malformedAnswer(error.serviceMessage)
        }
        self.init(kind, cause: error)
    }
}

/// Why KMS gave no data key. Messages name the action and KMS's error code, never a key.
public struct KMSKeyError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind
    /// The failed KMS call (an `AWSCallError`).
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
    /// The error that caused this one: the failed KMS call (an `AWSCallError`: its AWS error
    /// code, status, request id and attempts), or the credentials' error.
    public var underlying: (any Error & Sendable)? { cause?.error ?? kind.underlying }

    /// Two errors are equal when they report the same failure; their causes are not compared.
    public static func == (lhs: KMSKeyError, rhs: KMSKeyError) -> Bool { lhs.kind == rhs.kind }
    public var description: String { message }
}

extension KMSKeyError {
    /// A setting (the region) cannot be used.
    public static func invalidSetting(_ value: String) -> KMSKeyError { KMSKeyError(.invalidSetting(value)) }
    /// No credentials to sign the call with.
    public static func credentials(_ value: CredentialsError) -> KMSKeyError { KMSKeyError(.credentials(value)) }
    /// KMS could not be reached.
    public static func unreachable(_ value: String) -> KMSKeyError { KMSKeyError(.unreachable(value)) }
    /// KMS refused: a wrong or disabled key, a key the caller may not use, a blob made under
    /// another key.
    public static func refused(action: String, code: String, message: String) -> KMSKeyError {
        KMSKeyError(.refused(action: action, code: code, message: message))
    }
    /// KMS's answer did not hold what it should.
    public static func malformedAnswer(_ value: String) -> KMSKeyError { KMSKeyError(.malformedAnswer(value)) }
}

extension KMSKeyError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``KMSKeyError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case invalidSetting(String)
        case credentials(CredentialsError)
        case unreachable(String)
        case refused(action: String, code: String, message: String)
        case malformedAnswer(String)
        case cancelled(action: String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .credentials(let error): error
            case .cancelled: CancellationError()
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .invalidSetting(let problem): "KMS: \(problem)"
            case .credentials(let error): "KMS: no credentials to sign with: \(error)"
            case .unreachable(let problem): "KMS: \(problem)"
            case .refused(let action, let code, let message): "KMS refused \(action): \(code)" + (message.isEmpty ? "" : ": \(message)")
            case .malformedAnswer(let problem): "KMS: malformed answer: \(problem)"
            case .cancelled(let action): "KMS \(action) was cancelled"
            }
        }

        package var code: ErrorCode {
            switch self {
            case .invalidSetting: "KMSKey.invalidSetting"
            case .credentials: "KMSKey.credentials"
            case .unreachable: "KMSKey.unreachable"
            case .refused: "KMSKey.refused"
            case .malformedAnswer: "KMSKey.malformedAnswer"
            case .cancelled: "KMSKey.cancelled"
            }
        }
    }
}

public import MultiAuthCore
import MultiAuthHTTP

/// Why an AWS call failed: which service and operation, what kind of failure (``code``:
/// `AWSClient.service`, `.transport`, `.cancelled`, ...), and for a service's refusal its
/// error code (``awsCode``), message, HTTP status and request id. Every error a failed AWS
/// call produces keeps it as its cause: find it with `error.cause(as: AWSCallError.self)`.
/// Messages never hold a credential or a request body.
public struct AWSCallError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// The kinds of failure, to switch on.
    package enum Kind: String, Sendable, Equatable {
        /// A setting (region, endpoint, retry mode) cannot be used.
        case invalidSetting
        /// No credentials to sign the call with.
        case credentials
        /// The service could not be reached, or its answer broke off.
        case transport
        /// The service answered with an error.
        case service
        /// The service answered success with a body that is not the protocol's.
        case malformedAnswer
        /// The call was cancelled.
        case cancelled
    }

    /// What kind of failure this is.
    package let kind: Kind
    /// The service's endpoint prefix (`sts`, `kms`).
    public let service: String
    /// The operation (`AssumeRole`).
    public let operation: String
    /// The service's error code (`ThrottlingException`), when it named one.
    package let serviceCode: String?
    /// What happened, in words (the service's message, at most 300 characters, or the cause's).
    public let serviceMessage: String
    /// The HTTP status of the last answer, if one came.
    public let status: Int?
    /// The service's request id, if it gave one.
    public let requestId: String?
    /// How many attempts were made.
    public let attempts: Int
    /// The cause (a transport or credentials error), kept whole.
    package let cause: UnderlyingError?
    /// The OAuth `error` field of a refusal that has one beside its code (the sign-in
    /// service's `TOKEN_EXPIRED` under `AccessDeniedException`).
    package var reason: String?

    /// An error of `kind` for `operation` on `service`.
    package init(
        _ kind: Kind, service: String, operation: String, serviceCode: String? = nil, message: String, status: Int? = nil,
        requestId: String? = nil, attempts: Int = 0, underlying: (any Error & Sendable)? = nil
    ) {
        self.kind = kind
        self.service = service
        self.operation = operation
        self.serviceCode = serviceCode
        self.serviceMessage = message
        self.status = status
        self.requestId = requestId
        self.attempts = attempts
        self.cause = underlying.map { UnderlyingError($0) }
    }

    /// `AWSClient.` and the kind, fixed once published.
    public var code: ErrorCode { ErrorCode(rawValue: "AWSClient.\(kind.rawValue)") }

    /// The service's error code as it named it (`ExpiredToken`, `AccessDeniedException`,
    /// `ThrottlingException`), to switch on; nil when it named none or no answer came.
    public var awsCode: ErrorCode? { serviceCode.map(ErrorCode.init(rawValue:)) }

    /// What failed and where, in one line.
    public var message: String { description }

    /// The cause: a transport failure, the credentials' error, a `CancellationError`.
    public var underlying: (any Error & Sendable)? { cause?.error }

    public var description: String {
        let call = "\(service) \(operation)"
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        switch kind {
        case .service:
            let id = requestId.map { ", request id \($0)" } ?? ""
            return "\(call) refused: \(serviceCode ?? "HTTP \(status ?? 0)")" + (serviceMessage.isEmpty ? "" : ": \(serviceMessage)") + id + tries
        case .transport: return "cannot reach \(service) (\(operation)): \(serviceMessage)\(tries)"
        case .malformedAnswer: return "\(call): malformed answer: \(serviceMessage)"
        case .credentials: return "\(call): no credentials to sign with: \(serviceMessage)"
        case .invalidSetting: return "\(service): \(serviceMessage)"
        case .cancelled: return "\(call) was cancelled"
        }
    }
}

extension AWSCallError {
    /// This error with `secrets` (the values sent in the call) cleared from its message, for
    /// keeping as another error's cause.
    package func redacting(_ secrets: [String]) -> AWSCallError {
        var copy = AWSCallError(
            kind, service: service, operation: operation, serviceCode: serviceCode, message: Redaction.removing(secrets, from: serviceMessage), status: status,
            requestId: requestId, attempts: attempts, underlying: cause?.error)
        copy.reason = reason
        return copy
    }
}

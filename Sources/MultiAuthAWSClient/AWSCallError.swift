package import MultiAuthCore
import MultiAuthHTTP

/// Why an AWS call failed: which service and operation, what kind of failure, and for a
/// service's refusal its error code, message, HTTP status and request id. Messages never
/// hold a credential or a request body.
package struct AWSCallError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
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
    package let service: String
    /// The operation (`AssumeRole`).
    package let operation: String
    /// The service's error code (`ThrottlingException`; `HTTP 500` when it named none).
    package let serviceCode: String?
    /// What happened, in words (the service's message, at most 300 characters, or the cause's).
    package let message: String
    /// The HTTP status of the last answer, if one came.
    package let status: Int?
    /// The service's request id, if it gave one.
    package let requestId: String?
    /// How many attempts were made.
    package let attempts: Int
    /// The cause (a transport or credentials error), kept whole.
    package let underlying: UnderlyingError?
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
        self.message = message
        self.status = status
        self.requestId = requestId
        self.attempts = attempts
        self.underlying = underlying.map { UnderlyingError($0) }
    }

    /// `AWSClient.` and the kind, fixed once published.
    package var code: ErrorCode { ErrorCode(rawValue: "AWSClient.\(kind.rawValue)") }

    package var description: String {
        let call = "\(service) \(operation)"
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        switch kind {
        case .service:
            let id = requestId.map { ", request id \($0)" } ?? ""
            return "\(call) refused: \(serviceCode ?? "HTTP \(status ?? 0)")" + (message.isEmpty ? "" : ": \(message)") + id + tries
        case .transport: return "cannot reach \(service) (\(operation)): \(message)\(tries)"
        case .malformedAnswer: return "\(call): malformed answer: \(message)"
        case .credentials: return "\(call): no credentials to sign with: \(message)"
        case .invalidSetting: return "\(service): \(message)"
        case .cancelled: return "\(call) was cancelled"
        }
    }
}

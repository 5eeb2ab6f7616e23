public import HTTPTypes
public import MultiAuthCore
public import MultiAuthSigV4

/// Why a request was turned away, as API Gateway words it: a status (401 for a missing
/// token, 403 otherwise), an `x-amzn-ErrorType` and a JSON body `{"message": …}`. The
/// message never holds a secret; ``reason`` says more for the gateway's own log.
public struct InboundRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The response status.
    public let status: HTTPResponse.Status
    /// The `x-amzn-ErrorType` value, such as `InvalidSignatureException`.
    public let errorType: String
    /// API Gateway's message for the client.
    public let message: String
    /// What exactly failed, for the log (never a secret).
    public let reason: String

    /// Creates a rejection.
    public init(status: HTTPResponse.Status, errorType: String, message: String, reason: String) {
        self.status = status
        self.errorType = errorType
        self.message = message
        self.reason = reason
    }

    public var description: String { "\(status.code) \(errorType): \(reason)" }

    /// The response body, `{"message":"…"}`.
    public var body: [UInt8] { Array(JSONValue.object(["message": .string(message)]).description.utf8) }

    /// The response head: the status, `content-type: application/json` and `x-amzn-ErrorType`.
    public var responseHead: HTTPResponse {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[Self.errorTypeField] = errorType
        return HTTPResponse(status: status, headerFields: fields)
    }

    /// `x-amzn-ErrorType`.
    public static let errorTypeField = HTTPField.Name("x-amzn-ErrorType")!

    /// No credential of any accepted kind.
    public static func missingToken(accepting modes: [AuthMode]) -> InboundRejection {
        // API Gateway answers a missing token 403 for IAM and API keys, 401 for authorizers.
        !modes.isEmpty && modes.allSatisfy(\.presentsJWT)
            ? InboundRejection(status: .unauthorized, errorType: "UnauthorizedException", message: "Unauthorized", reason: "no token")
            : InboundRejection(
                status: .forbidden, errorType: "MissingAuthenticationTokenException", message: "Missing Authentication Token",
                reason: "no signature, API key or token")
    }

    /// A wrong or unknown API key.
    public static let forbiddenKey = InboundRejection(
        status: .forbidden, errorType: "ForbiddenException", message: "Forbidden", reason: "unknown API key")

    /// A JWT that does not validate.
    public static func invalidToken(_ reason: String) -> InboundRejection {
        InboundRejection(status: .unauthorized, errorType: "UnauthorizedException", message: "Unauthorized", reason: reason)
    }

    /// A SigV4 or SigV4a request the verifier turned down.
    public static func signature(_ failure: VerificationFailure) -> InboundRejection {
        switch failure.kind {
        case .unknownAccessKey:
            InboundRejection(
                status: .forbidden, errorType: "UnrecognizedClientException",
                message: "The security token included in the request is invalid.", reason: failure.description)
        case .expired, .notYetValid:
            InboundRejection(
                status: .forbidden, errorType: "InvalidSignatureException", message: "Signature expired or not yet valid.",
                reason: failure.description)
        case .missingAuthorization, .malformedAuthorization, .repeatedParameter, .unsupportedAlgorithm, .hostNotSigned:
            InboundRejection(
                status: .forbidden, errorType: "IncompleteSignatureException",
                message: "Authorization header requires a valid Credential, SignedHeaders and Signature.", reason: failure.description)
        case .sessionTokenMismatch, .scopeMismatch, .signatureMismatch:
            InboundRejection(
                status: .forbidden, errorType: "InvalidSignatureException",
                message: "The request signature we calculated does not match the signature you provided. "
                    + "Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
                reason: failure.description)
        }
    }

    /// A body larger than the gateway reads to check its hash.
    public static func bodyTooLarge(limit: Int) -> InboundRejection {
        InboundRejection(
            status: .contentTooLarge, errorType: "RequestEntityTooLargeException", message: "Request Too Long",
            reason: "body over \(limit) bytes")
    }
}

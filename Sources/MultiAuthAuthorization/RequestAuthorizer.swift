public import HTTPTypes
public import MultiAuthCore
public import MultiAuthCredentials
public import MultiAuthSigV4

/// A request and its body as they go on the wire after authorization.
public struct AuthorizedRequest: Sendable {
    /// The request with its authorization added.
    public var request: HTTPRequest
    /// The body to send: the one given, or its transformed form (an `aws-chunked` stream).
    public var body: OutgoingBody
    /// The signing stages, for IAM (to inspect or log).
    public var signing: SigningResult?

    /// Creates an authorized request.
    public init(request: HTTPRequest, body: OutgoingBody, signing: SigningResult? = nil) {
        self.request = request
        self.body = body
        self.signing = signing
    }
}

/// Turns a (request, body) pair into an authorized one. Authorizers run last, after every
/// other header is in place, so a signature covers the final request; they run again on
/// every attempt (a retry, a re-signing after clock skew).
public protocol RequestAuthorizer: Sendable {
    /// Authorizes `request` with `body` for the time `date`.
    func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest

    /// Authorizes a body-less `request` at once when nothing needs waiting for (a fixed key
    /// or token): the outcome ``authorize(_:body:at:)`` would give, or nil when only that
    /// call can tell. The default is nil.
    func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>?
}

extension RequestAuthorizer {
    /// Nil: the authorizer decides only through ``authorize(_:body:at:)``.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? { nil }
}

/// Why a request could not be authorized. Never carries a key, token or secret.
public struct AuthorizationError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension AuthorizationError {
    public static func credentials(_ value: CredentialsError) -> AuthorizationError {
        AuthorizationError(.credentials(value))
    }
    public static func signing(_ value: SigningError) -> AuthorizationError { AuthorizationError(.signing(value)) }
    public static func tokenUnavailable(_ value: String) -> AuthorizationError {
        AuthorizationError(.tokenUnavailable(value))
    }
    /// A token command did not finish in time and was stopped.
    public static func tokenCommandTimedOut(seconds: Double) -> AuthorizationError {
        AuthorizationError(.tokenCommandTimedOut(seconds: seconds))
    }
    /// The secret (key or token) cannot go in a header: it holds a line break or control character.
    public static func invalidSecret(_ value: String) -> AuthorizationError {
        AuthorizationError(.invalidSecret(value))
    }
}

extension AuthorizationError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``AuthorizationError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case credentials(CredentialsError)
        case signing(SigningError)
        case tokenUnavailable(String)
        case tokenCommandTimedOut(seconds: Double)
        case invalidSecret(String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .credentials(let error): error
            case .signing(let error): error
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .credentials(let error): error.description
            case .signing(let error): error.description
            case .tokenUnavailable(let reason): "no token: \(reason)"
            case .tokenCommandTimedOut(let seconds): "no token: the token command did not finish within \(seconds.secondsText) s and was stopped"
            case .invalidSecret(let what): "\(what) contains a line break or a control character, so it cannot be sent in a header"
            }
        }
    }
}

/// No authorization.
public struct NoAuthorizer: RequestAuthorizer {
    /// Creates it.
    public init() {}

    public func authorize(_ request: HTTPRequest, body: OutgoingBody, at date: SigningDate) async throws(AuthorizationError) -> AuthorizedRequest {
        AuthorizedRequest(request: request, body: body)
    }

    /// The request as it is.
    public func authorizeWithoutSuspending(_ request: HTTPRequest) -> Result<HTTPRequest, AuthorizationError>? { .success(request) }
}

extension HTTPFields {
    /// Replaces every `name` field with one `value`, marked sensitive.
    mutating func setSecret(_ name: HTTPField.Name, _ value: String, what: String) throws(AuthorizationError) {
        guard HTTPField.isValidValue(value) else { throw .invalidSecret(what) }
        self[name] = nil
        var field = HTTPField(name: name, value: value)
        field.indexingStrategy = .disallow
        append(field)
    }
}

extension AuthorizationError.Kind {
    /// `Authorization.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .credentials: "Authorization.credentials"
        case .signing: "Authorization.signing"
        case .tokenUnavailable: "Authorization.tokenUnavailable"
        case .tokenCommandTimedOut: "Authorization.tokenCommandTimedOut"
        case .invalidSecret: "Authorization.invalidSecret"
        }
    }
}

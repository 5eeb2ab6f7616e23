public import MultiAuthCore
public import MultiAuthWebAuthn

/// Why a token could not be obtained. Messages are one line, name the provider and the
/// problem, and never carry a token, password, client secret, code verifier or device code.
public struct TokenError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind
    /// The error behind a case that holds only words: the failed AWS call (an `AWSCallError`) behind a Cognito failure.
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
    /// The error that caused this one, when there is one (the failed AWS call (an `AWSCallError`) behind a Cognito failure).
    public var underlying: (any Error & Sendable)? { cause?.error ?? kind.underlying }

    /// Two errors are equal when they report the same failure; their causes are not compared.
    public static func == (lhs: TokenError, rhs: TokenError) -> Bool { lhs.kind == rhs.kind }
    public var description: String { message }
}

extension TokenError {
    /// The provider refused the credentials (wrong password, bad client secret, revoked token).
    public static func notAuthorized(provider: String, message: String) -> TokenError {
        TokenError(.notAuthorized(provider: provider, message: message))
    }
    /// The user does not exist.
    public static func userNotFound(provider: String) -> TokenError { TokenError(.userNotFound(provider: provider)) }
    /// The user must reset the password before signing in.
    public static func passwordResetRequired(provider: String) -> TokenError {
        TokenError(.passwordResetRequired(provider: provider))
    }
    /// The user has not confirmed the account.
    public static func userNotConfirmed(provider: String) -> TokenError {
        TokenError(.userNotConfirmed(provider: provider))
    }
    /// The provider throttled the request.
    public static func tooManyRequests(provider: String) -> TokenError {
        TokenError(.tooManyRequests(provider: provider))
    }
    /// The provider rejected a parameter.
    public static func invalidParameter(provider: String, message: String) -> TokenError {
        TokenError(.invalidParameter(provider: provider, message: message))
    }
    /// Any other error the provider reported, by its code.
    public static func service(provider: String, code: String, message: String) -> TokenError {
        TokenError(.service(provider: provider, code: code, message: message))
    }
    /// The stored login can no longer be refreshed (refresh token expired or revoked).
    public static func loginRequired(name: String, reason: String) -> TokenError {
        TokenError(.loginRequired(name: name, reason: reason))
    }
    /// The provider could not be reached.
    public static func unreachable(provider: String, problem: String) -> TokenError {
        TokenError(.unreachable(provider: provider, problem: problem))
    }
    /// The provider answered with something that is not what the protocol says.
    public static func malformedResponse(provider: String, problem: String) -> TokenError {
        TokenError(.malformedResponse(provider: provider, problem: problem))
    }
    /// A token failed validation (signature, issuer, audience, expiry, nonce).
    public static func invalidToken(reason: String) -> TokenError { TokenError(Kind.invalidToken(reason: reason)) }
    /// The user must choose a new password and none was given.
    public static func newPasswordRequired(username: String) -> TokenError {
        TokenError(.newPasswordRequired(username: username))
    }
    /// A challenge this client does not answer.
    public static func unsupportedChallenge(_ value: String) -> TokenError { TokenError(.unsupportedChallenge(value)) }
    /// A one-time code was wrong (Cognito's CodeMismatchException); the sign-in must start over.
    public static func codeMismatch(provider: String) -> TokenError { TokenError(.codeMismatch(provider: provider)) }
    /// A one-time code or the sign-in session expired (ExpiredCodeException); start over.
    public static func codeExpired(provider: String) -> TokenError { TokenError(.codeExpired(provider: provider)) }
    /// A challenge needs an answer and there is no way to ask for one: `how` says how to give it.
    public static func challengeNeedsInput(challenge: String, how: String) -> TokenError {
        TokenError(.challengeNeedsInput(challenge: challenge, how: how))
    }
    /// The device code expired before the user approved it.
    public static var deviceCodeExpired: TokenError { TokenError(.deviceCodeExpired) }
    /// The user or the provider denied the authorization.
    public static func accessDenied(provider: String, message: String) -> TokenError {
        TokenError(.accessDenied(provider: provider, message: message))
    }
    /// Waiting for the browser or the device approval took too long.
    public static func timedOut(what: String, seconds: Int) -> TokenError {
        TokenError(.timedOut(what: what, seconds: seconds))
    }
    /// The authorization response does not belong to this login (`state` mismatch).
    public static var stateMismatch: TokenError { TokenError(.stateMismatch) }
    /// The credential store failed, or what it held is unusable: the store's error (a
    /// `StoreError`) or the decoding one, kept whole.
    public static func storage(_ value: UnderlyingError) -> TokenError { TokenError(.storage(value)) }
    /// A local failure (randomness, sockets).
    public static func local(_ value: String) -> TokenError { TokenError(.local(value)) }
    /// The task was cancelled while calling `provider` (the cause is a `CancellationError`).
    public static func cancelled(provider: String) -> TokenError { TokenError(.cancelled(provider: provider)) }

    /// A passkey could not be made or used; `cause` is the authenticator's error.
    public static func passkey(_ cause: WebAuthnError) -> TokenError { TokenError(.passkey(cause.message), cause: cause) }
}

extension TokenError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``TokenError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case notAuthorized(provider: String, message: String)
        case userNotFound(provider: String)
        case passwordResetRequired(provider: String)
        case userNotConfirmed(provider: String)
        case tooManyRequests(provider: String)
        case invalidParameter(provider: String, message: String)
        case service(provider: String, code: String, message: String)
        case loginRequired(name: String, reason: String)
        case unreachable(provider: String, problem: String)
        case malformedResponse(provider: String, problem: String)
        case invalidToken(reason: String)
        case newPasswordRequired(username: String)
        case unsupportedChallenge(String)
        case codeMismatch(provider: String)
        case codeExpired(provider: String)
        case challengeNeedsInput(challenge: String, how: String)
        case deviceCodeExpired
        case accessDenied(provider: String, message: String)
        case timedOut(what: String, seconds: Int)
        case stateMismatch
        case storage(UnderlyingError)
        case local(String)
        case cancelled(provider: String)
        /// A passkey could not be made or used (the authenticator's or the browser checks' reason).
        case passkey(String)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .cancelled: CancellationError()
            case .storage(let kept): kept.error
            default: nil
            }
        }

        package var description: String {
            switch self {
            case .notAuthorized(let provider, let message): "\(provider): not authorized: \(message)"
            case .userNotFound(let provider): "\(provider): user not found"
            case .passwordResetRequired(let provider): "\(provider): the password must be reset before signing in"
            case .userNotConfirmed(let provider): "\(provider): the user is not confirmed"
            case .tooManyRequests(let provider): "\(provider): too many requests; try again later"
            case .invalidParameter(let provider, let message): "\(provider): invalid parameter: \(message)"
            case .service(let provider, let code, let message): "\(provider): \(code): \(message)"
            case .loginRequired(let name, let reason): "login '\(name)' can no longer be refreshed (\(reason))"
            case .unreachable(let provider, let problem): "\(provider) is unreachable: \(problem)"
            case .malformedResponse(let provider, let problem): "\(provider) sent a malformed response: \(problem)"
            case .invalidToken(let reason): "the token is not valid: \(reason)"
            case .newPasswordRequired(let username): "user '\(username)' must set a new password: run interactively or give --new-password-stdin"
            case .unsupportedChallenge(let name): "the provider asked for challenge \(name), which this client does not answer"
            case .codeMismatch(let provider): "\(provider): the code is wrong; sign in again"
            case .codeExpired(let provider): "\(provider): the code or the sign-in session expired; sign in again"
            case .challengeNeedsInput(let challenge, let how): "the sign-in asks for \(challenge): \(how)"
            case .deviceCodeExpired: "the device code expired before the sign-in was approved"
            case .accessDenied(let provider, let message): "\(provider): access denied: \(message)"
            case .timedOut(let what, let seconds): "gave up waiting for \(what) after \(seconds) s"
            case .stateMismatch: "the authorization response's state does not match this login; it was ignored"
            case .storage(let underlying): underlying.description
            case .local(let message): message
            case .cancelled(let provider): "the call to \(provider) was cancelled"
            case .passkey(let problem): "passkey: \(problem)"
            }
        }

        package var refusesRefreshToken: Bool {
            switch self {
            case .notAuthorized, .loginRequired: true
            case .service(_, let code, _): code == "invalid_grant"
            default: false
            }
        }
    }
}

extension String {
    /// The text with every occurrence of the given secrets replaced, for server messages
    /// that echo what was sent (moto echoes a wrong SECRET_HASH, for one).
    func redacting(_ secrets: [String]) -> String {
        Redaction.removing(secrets, from: self)
    }
}

extension TokenError.Kind {
    /// `Token.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .notAuthorized: "Token.notAuthorized"
        case .userNotFound: "Token.userNotFound"
        case .passwordResetRequired: "Token.passwordResetRequired"
        case .userNotConfirmed: "Token.userNotConfirmed"
        case .tooManyRequests: "Token.tooManyRequests"
        case .invalidParameter: "Token.invalidParameter"
        case .service: "Token.service"
        case .loginRequired: "Token.loginRequired"
        case .unreachable: "Token.unreachable"
        case .malformedResponse: "Token.malformedResponse"
        case .invalidToken: "Token.invalidToken"
        case .newPasswordRequired: "Token.newPasswordRequired"
        case .unsupportedChallenge: "Token.unsupportedChallenge"
        case .codeMismatch: "Token.codeMismatch"
        case .codeExpired: "Token.codeExpired"
        case .challengeNeedsInput: "Token.challengeNeedsInput"
        case .deviceCodeExpired: "Token.deviceCodeExpired"
        case .accessDenied: "Token.accessDenied"
        case .timedOut: "Token.timedOut"
        case .stateMismatch: "Token.stateMismatch"
        case .storage: "Token.storage"
        case .local: "Token.local"
        case .cancelled: "Token.cancelled"
        case .passkey: "Token.passkey"
        }
    }
}

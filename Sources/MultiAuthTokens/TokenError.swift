public import MultiAuthCore

/// Why a token could not be obtained. Messages are one line, name the provider and the
/// problem, and never carry a token, password, client secret, code verifier or device code.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider refused the credentials (wrong password, bad client secret, revoked token).
    case notAuthorized(provider: String, message: String)
    /// The user does not exist.
    case userNotFound(provider: String)
    /// The user must reset the password before signing in.
    case passwordResetRequired(provider: String)
    /// The user has not confirmed the account.
    case userNotConfirmed(provider: String)
    /// The provider throttled the request.
    case tooManyRequests(provider: String)
    /// The provider rejected a parameter.
    case invalidParameter(provider: String, message: String)
    /// Any other error the provider reported, by its code.
    case service(provider: String, code: String, message: String)
    /// The stored login can no longer be refreshed (refresh token expired or revoked).
    case loginRequired(name: String, reason: String)
    /// The provider could not be reached.
    case unreachable(provider: String, problem: String)
    /// The provider answered with something that is not what the protocol says.
    case malformedResponse(provider: String, problem: String)
    /// A token failed validation (signature, issuer, audience, expiry, nonce).
    case invalidToken(reason: String)
    /// The user must choose a new password and none was given.
    case newPasswordRequired(username: String)
    /// A challenge this client does not answer.
    case unsupportedChallenge(String)
    /// A one-time code was wrong (Cognito's CodeMismatchException); the sign-in must start over.
    case codeMismatch(provider: String)
    /// A one-time code or the sign-in session expired (ExpiredCodeException); start over.
    case codeExpired(provider: String)
    /// A challenge needs an answer and there is no way to ask for one: `how` says how to give it.
    case challengeNeedsInput(challenge: String, how: String)
    /// The device code expired before the user approved it.
    case deviceCodeExpired
    /// The user or the provider denied the authorization.
    case accessDenied(provider: String, message: String)
    /// Waiting for the browser or the device approval took too long.
    case timedOut(what: String, seconds: Int)
    /// The authorization response does not belong to this login (`state` mismatch).
    case stateMismatch
    /// The credential store failed, or what it held is unusable: the store's error (a
    /// `StoreError`) or the decoding one, kept whole.
    case storage(UnderlyingError)
    /// A local failure (randomness, sockets).
    case local(String)

    public var description: String {
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
        }
    }

    /// True when the refresh token itself was refused, so only a new login helps.
    var refusesRefreshToken: Bool {
        switch self {
        case .notAuthorized, .loginRequired: true
        case .service(_, let code, _): code == "invalid_grant"
        default: false
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

extension TokenError: CodedError {
    /// `Token.` and the case's name, fixed once published.
    public var code: ErrorCode {
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
        }
    }
}

public import MultiAuthCore
import MultiAuthHTTP

/// A second factor Cognito asks for, by its challenge name.
public enum CognitoMFAKind: String, Sendable, Codable, CaseIterable {
    /// A code from an authenticator app (TOTP).
    case totp = "SOFTWARE_TOKEN_MFA"
    /// A code sent by text message.
    case sms = "SMS_MFA"
    /// A code sent by email (as MFA, or as USER_AUTH's first factor).
    case email = "EMAIL_OTP"
    /// A code sent by text message as USER_AUTH's first factor.
    case smsOTP = "SMS_OTP"

    /// The response key Cognito expects the code under (`SOFTWARE_TOKEN_MFA_CODE`, ...).
    var codeKey: String { rawValue + "_CODE" }
}

/// TOTP set-up (MFA_SETUP): the secret to enter in an authenticator app. ``description``
/// never shows the secret.
public struct CognitoTOTPSetup: Sendable, Equatable, RedactedDescribing {
    /// The base32 secret from AssociateSoftwareToken.
    public let secret: String
    /// The user the secret is for.
    public let username: String
    /// The issuer shown by authenticator apps (the pool id).
    public let issuer: String

    /// `otpauth://totp/ISSUER:USER?secret=...&issuer=ISSUER`, the URI authenticator apps read
    /// (from a QR code).
    public var otpauthURI: String {
        let label = FormURLEncoding.escape(issuer) + ":" + FormURLEncoding.escape(username)
        return "otpauth://totp/\(label)?secret=\(FormURLEncoding.escape(secret))&issuer=\(FormURLEncoding.escape(issuer))"
    }

    public var description: String { "TOTP set-up for \(username) (secret \(Redaction.placeholder))" }
}

/// Answers the challenges of a Cognito sign-in: the CLI with flags, commands and terminal
/// prompts; an app with its own UI. Each answer is zeroed after use.
public protocol CognitoChallengeResponder: Sendable {
    /// A new password for `username` (NEW_PASSWORD_REQUIRED).
    func newPassword(for username: String) async throws(TokenError) -> [UInt8]
    /// The one-time code of `kind`; `destination` is where Cognito sent it (masked), if it says.
    func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8]
    /// Which of `options` to use (SELECT_MFA_TYPE).
    func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind
    /// Shows `setup` to the user and returns the first code their authenticator app shows
    /// (MFA_SETUP with TOTP).
    func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8]
    /// Which first factor to use (USER_AUTH's SELECT_CHALLENGE, when none was preferred).
    func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor
    /// The answer to a custom challenge (CUSTOM_CHALLENGE); called once per round.
    func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8]
    /// A passkey's assertion (WEB_AUTHN): `options` is the pool's
    /// PublicKeyCredentialRequestOptionsJSON, the answer an AuthenticationResponseJSON (what
    /// `WebAuthnClient.authenticate(_:)` returns). By default, WEB_AUTHN is not answered.
    func passkeyAssertion(for options: JSONValue) async throws(TokenError) -> JSONValue
}

extension CognitoChallengeResponder {
    /// Refuses WEB_AUTHN: the responder has no authenticator.
    public func passkeyAssertion(for options: JSONValue) async throws(TokenError) -> JSONValue {
        throw .unsupportedChallenge("WEB_AUTHN")
    }
}

/// A responder that only supplies a new password (the original `signIn(newPassword:)`
/// behaviour): any other challenge is ``TokenError/unsupportedChallenge(_:)``.
struct NewPasswordOnlyResponder: CognitoChallengeResponder {
    let newPassword: (@Sendable () async throws(TokenError) -> [UInt8])?

    func newPassword(for username: String) async throws(TokenError) -> [UInt8] {
        guard let newPassword else { throw .newPasswordRequired(username: username) }
        return try await newPassword()
    }

    func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8] {
        throw .unsupportedChallenge(kind.rawValue)
    }

    func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind {
        throw .unsupportedChallenge("SELECT_MFA_TYPE")
    }

    func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8] {
        throw .unsupportedChallenge("MFA_SETUP")
    }

    func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor {
        throw .unsupportedChallenge("SELECT_CHALLENGE")
    }

    func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8] {
        throw .unsupportedChallenge("CUSTOM_CHALLENGE")
    }
}

public import MultiAuthCore

/// Why a JWT was refused: malformed, an algorithm or key that cannot check it, a signature
/// that does not verify, or a claim that fails (issuer, audience, expiry, nonce). The reason
/// names the check, never the token.
public struct InvalidTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check that failed.
    public let reason: String

    /// Creates the error.
    public init(reason: String) { self.reason = reason }

    /// The error for `reason` (so a typed `throw .invalidToken(reason:)` reads as it always did).
    public static func invalidToken(reason: String) -> InvalidTokenError { InvalidTokenError(reason: reason) }

    public var description: String { "the token is not valid: \(reason)" }
}

extension InvalidTokenError: CodedError {
    /// `Token.invalidToken`, as `TokenError.invalidToken(reason:)`'s.
    public var code: ErrorCode { "Token.invalidToken" }
}

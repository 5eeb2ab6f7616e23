import MultiAuthCrypto

/// Proof Key for Code Exchange (RFC 7636) with the S256 method, plus the `state` and
/// `nonce` values of one authorization request.
public struct PKCE: Sendable {
    /// The secret verifier: 32 random bytes, base64url (43 characters).
    public let verifier: String
    /// base64url(SHA-256(verifier)).
    public let challenge: String
    /// The `state` that the redirect must echo.
    public let state: String
    /// The `nonce` the ID token must carry.
    public let nonce: String

    /// Fresh random values.
    public init() throws(TokenError) {
        do {
            verifier = Base64.encodeURL(try SecureRandom.bytes(count: 32))
            state = Base64.encodeURL(try SecureRandom.bytes(count: 16))
            nonce = Base64.encodeURL(try SecureRandom.bytes(count: 16))
        } catch { throw .local(error.description) }
        challenge = Self.challenge(for: verifier)
    }

    /// The S256 challenge of `verifier`.
    public static func challenge(for verifier: String) -> String {
        Base64.encodeURL(SHA256Hasher.hash(Array(verifier.utf8)).bytes)
    }
}

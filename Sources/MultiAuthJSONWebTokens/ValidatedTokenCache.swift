import MultiAuthCrypto
import Synchronization

/// Tokens a server has already validated, so a client presenting the same JWT on every
/// request costs one signature check, not one per request.
///
/// A token is remembered under its SHA-256 (the token itself is not kept), with its claims,
/// the key of the set that verified it, and the last moment its `exp` (plus the validator's
/// leeway) accepts. A remembered token passes again only while that moment has not gone by
/// on the validator's clock and the validator's key set still holds that same key; otherwise
/// it is validated afresh, as are tokens that name no key and every token that fails. At
/// `capacity` tokens the cache is emptied and starts over, so its memory stays bounded.
public final class ValidatedTokenCache: Sendable {
    private struct Entry: Sendable {
        let claims: JWTClaims
        let key: JSONWebKey
        let lastAcceptedMoment: Int64
    }

    private let entries = Mutex<[SHA256Digest: Entry]>([:])
    private let capacity: Int

    /// A cache holding at most `capacity` validated tokens.
    public init(capacity: Int = 4_096) {
        self.capacity = max(capacity, 1)
    }

    /// The claims of `token`, as `validator.validate(token)` gives them: from the cache when
    /// the token was validated before and still passes as described above.
    /// - Throws: the ``InvalidTokenError`` of ``IDTokenValidator/validate(_:nonce:)``.
    public func claims(of token: String, validator: IDTokenValidator) throws(InvalidTokenError) -> JWTClaims {
        let digest = SHA256Hasher.hash(token.utf8)
        if let claims = remembered(digest, validator: validator) { return claims }
        let (claims, key) = try validator.validateNamingKey(token)
        if let key, let expiry = claims.expiresAt {
            let entry = Entry(claims: claims, key: key, lastAcceptedMoment: validator.lastAcceptedMoment(expiry: expiry))
            entries.withLock { held in
                if held.count >= capacity { held.removeAll(keepingCapacity: true) }
                held[digest] = entry
            }
        }
        return claims
    }

    /// The claims of `token` when it was validated before and still passes (see above), nil
    /// otherwise; never validates. Reading the token is not needed for this, so a server can
    /// ask before parsing it.
    public func rememberedClaims(of token: String, validator: IDTokenValidator) -> JWTClaims? {
        remembered(SHA256Hasher.hash(token.utf8), validator: validator)
    }

    private func remembered(_ digest: SHA256Digest, validator: IDTokenValidator) -> JWTClaims? {
        guard let entry = entries.withLock({ $0[digest] }), validator.now() <= entry.lastAcceptedMoment,
            validator.keys.keys.contains(entry.key)
        else { return nil }
        return entry.claims
    }

    /// How many tokens are remembered (for tests and diagnostics).
    public var count: Int { entries.withLock { $0.count } }
}

public import MultiAuthCore
import MultiAuthCrypto

/// A JSON Web Key Set (RFC 7517), as served at a provider's `jwks_uri`.
public struct JSONWebKeySet: Sendable, Decodable, Equatable {
    /// The keys.
    public let keys: [JSONWebKey]

    /// The set.
    public init(keys: [JSONWebKey]) { self.keys = keys }
}

/// One public key of a set: RSA (`n`, `e`) or EC P-256 or P-384 (`x`, `y`).
public struct JSONWebKey: Sendable, Decodable, Equatable {
    /// `RSA` or `EC`.
    public let kty: String
    /// The key id tokens name in their header.
    public let kid: String?
    /// The algorithm the key is for, when stated.
    public let alg: String?
    /// `sig` for signing keys.
    public let use: String?
    /// The curve, for EC keys.
    public let crv: String?
    /// RSA modulus and exponent, base64url.
    public let n: String?, e: String?
    /// EC coordinates, base64url.
    public let x: String?, y: String?

    /// A key from its JWK members (base64url values).
    public init(
        kty: String, kid: String?, alg: String? = nil, use: String? = nil, crv: String? = nil, n: String? = nil, e: String? = nil,
        x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.alg = alg
        self.use = use
        self.crv = crv
        self.n = n
        self.e = e
        self.x = x
        self.y = y
    }

    /// The key for OpenSSL, checked to suit `algorithm`.
    func publicKey(for algorithm: String) throws(InvalidTokenError) -> JWSPublicKey {
        if let alg, alg != algorithm { throw .invalidToken(reason: "key '\(kid ?? "")' is for \(alg), the token is \(algorithm)") }
        do {
            switch (algorithm, kty) {
            case ("RS256", "RSA"):
                guard let n, let e else { break }
                return .rsa(modulus: try Base64.decode(n), exponent: try Base64.decode(e))
            case ("ES256", "EC"):
                guard crv == "P-256", let x, let y else { break }
                return .p256(x: try Base64.decode(x), y: try Base64.decode(y))
            case ("ES384", "EC"):
                guard crv == "P-384", let x, let y else { break }
                return .p384(x: try Base64.decode(x), y: try Base64.decode(y))
            default: break
            }
        } catch { throw .invalidToken(reason: "key '\(kid ?? "")' is not valid base64url") }
        throw .invalidToken(reason: "key '\(kid ?? "")' (\(kty)) cannot check an \(algorithm) signature")
    }
}

/// Validates ID tokens (OpenID Connect Core §3.1.3.7): RS256, ES256 or ES384 signature against the
/// provider's keys, `iss`, `aud`, `exp` (with a small leeway) and `nonce`.
public struct IDTokenValidator: Sendable {
    /// The accepted signature algorithms; `none` and HMAC algorithms are never accepted.
    public static let algorithms: Set<String> = ["RS256", "ES256", "ES384"]

    /// The `iss` a token must carry.
    public let issuer: String
    let audience: AudienceRule
    var keys: JSONWebKeySet
    /// The leeway in whole seconds, as `exp` counts.
    let leeway: Int64
    let clock: TimeSource

    /// - Parameters:
    ///   - leeway: clock difference tolerated on `exp` (default 60 s; whole seconds count).
    ///   - clock: the wall clock expiry is checked against.
    public init(issuer: String, clientId: String, keys: JSONWebKeySet, leeway: Duration = .seconds(60), clock: TimeSource = .system) {
        self.init(issuer: issuer, audience: .client(clientId), keys: keys, leeway: leeway, clock: clock)
    }

    /// Access tokens as API Gateway's authorizers check them: with `audiences`, an `aud` among
    /// them, or (a token without `aud`) a `client_id` among them, as HTTP APIs' JWT authorizers
    /// do; with none, any audience, as Cognito user pool authorizers accept any app client of
    /// the pool.
    package init(issuer: String, audiences: [String], keys: JSONWebKeySet, leeway: Duration = .seconds(60), clock: TimeSource = .system) {
        self.init(issuer: issuer, audience: audiences.isEmpty ? .any : .oneOf(Set(audiences)), keys: keys, leeway: leeway, clock: clock)
    }

    private init(issuer: String, audience: AudienceRule, keys: JSONWebKeySet, leeway: Duration, clock: TimeSource) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.leeway = max(0, leeway.components.seconds)
        self.clock = clock
    }

    /// Which audiences a token may be for.
    enum AudienceRule: Sendable {
        /// An ID token: `aud` includes the client.
        case client(String)
        /// An access token: `aud`, or without one `client_id`, is one of these.
        case oneOf(Set<String>)
        /// Any audience.
        case any

        /// Why a token was not admitted.
        var refusal: String {
            switch self {
            case .client(let id): "audience does not include client '\(id)'"
            case .oneOf: "neither aud nor client_id is an accepted audience"
            case .any: ""
            }
        }

        func admits(_ claims: JWTClaims) -> Bool {
            switch self {
            case .client(let id): return claims.audiences.contains(id)
            case .oneOf(let allowed):
                let named = claims.audiences
                guard named.isEmpty else { return named.contains(where: allowed.contains) }
                return claims.members["client_id"]?.stringValue.map(allowed.contains) ?? false
            case .any: return true
            }
        }
    }

    /// This validator with `keys` in place of its own (a key set fetched again).
    public func using(_ keys: JSONWebKeySet) -> IDTokenValidator {
        var copy = self
        copy.keys = keys
        return copy
    }

    /// The token's claims, once every check passed.
    /// - Parameter nonce: the nonce sent in the authorization request, if any.
    /// - Throws: ``InvalidTokenError`` naming the first check that failed.
    @discardableResult
    public func validate(_ token: String, nonce: String? = nil) throws(InvalidTokenError) -> JWTClaims {
        try validateNamingKey(token, nonce: nonce).claims
    }

    /// ``validate(_:nonce:)``, also giving the key of the set that the signature verified
    /// under (nil when the token names no key).
    func validateNamingKey(_ token: String, nonce: String? = nil) throws(InvalidTokenError) -> (claims: JWTClaims, key: JSONWebKey?) {
        let jwt = try JSONWebToken(parsing: token)
        guard Self.algorithms.contains(jwt.header.alg) else { throw .invalidToken(reason: "algorithm \(jwt.header.alg) is not accepted") }
        let (key, entry) = try signingKey(for: jwt.header)
        guard key.isValidSignature(jwt.signature, for: jwt.signingInput) else { throw .invalidToken(reason: "the signature does not verify") }
        let claims = jwt.claims
        guard claims.issuer == issuer else { throw .invalidToken(reason: "issuer '\(claims.issuer ?? "")' is not '\(issuer)'") }
        guard audience.admits(claims) else { throw .invalidToken(reason: audience.refusal) }
        guard let expiry = claims.expiresAt else { throw .invalidToken(reason: "no exp claim") }
        guard expiry + leeway > now() else { throw .invalidToken(reason: "expired at \(expiry)") }
        if let nonce, claims.nonce != nonce { throw .invalidToken(reason: "the nonce does not match this login") }
        return (claims, entry)
    }

    /// The latest moment (Unix seconds) at which a token expiring at `expiry` still passes.
    func lastAcceptedMoment(expiry: Int64) -> Int64 { expiry + leeway - 1 }

    /// The public key to check a token with, and the set's entry for it when the token names one.
    private func signingKey(for header: JSONWebToken.Header) throws(InvalidTokenError) -> (JWSPublicKey, JSONWebKey?) {
        let candidates = keys.keys.filter { $0.use == nil || $0.use == "sig" }
        if let kid = header.kid {
            guard let key = candidates.first(where: { $0.kid == kid }) else {
                throw .invalidToken(reason: "the provider's key set has no key '\(kid)'")
            }
            return (try key.publicKey(for: header.alg), key)
        }
        // No kid: acceptable only when exactly one key could have signed it.
        let suitable = candidates.compactMap { try? $0.publicKey(for: header.alg) }
        guard suitable.count == 1, let only = suitable.first else {
            throw .invalidToken(reason: "the token names no key and the key set has \(suitable.count) that could match")
        }
        return (only, nil)
    }
}

extension IDTokenValidator {
    /// Whole seconds since 1970 on ``clock``.
    func now() -> Int64 { Int64(clock.now()) }
}

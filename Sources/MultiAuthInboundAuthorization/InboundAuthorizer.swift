public import HTTPTypes
public import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthJSONWebTokens
public import MultiAuthSigV4

/// Decides whether a request a server received may pass, in the modes API Gateway accepts:
/// SigV4 and SigV4a signatures (header or presigned), API keys in `x-api-key`, and JWTs from
/// a user pool or OIDC provider in `Authorization`. Each configured mode is tried in that
/// order when the request carries its kind of credential; the first one present decides.
///
/// A presigned URL can be replayed until it expires: there is no replay cache.
public struct InboundAuthorizer: Sendable {
    let verifier: SigV4Verifier?
    /// API key → the name it is known by.
    let apiKeys: [String: String]
    let tokenValidator: IDTokenValidator?
    /// The mode of the tokens ``tokenValidator`` accepts, from their issuer.
    var tokenMode: AuthMode? { tokenValidator.map { AuthMode.forTokens(issuedBy: $0.issuer) } }
    let keySet: JSONWebKeySetCache?
    /// JWTs validated before: a client sends the same token with every request.
    let validatedTokens = ValidatedTokenCache()
    let clock: TimeSource

    /// Creates an authorizer. `apiKeys` maps each accepted key to its name (the principal
    /// forwarded upstream, never the key); an empty key is never accepted, whatever table it
    /// came from (a blank line in a key file must not let an empty `x-api-key` in); `clock` is the wall clock signatures are checked against.
    /// With `keySet`, tokens are checked against its keys (fetched again as the provider
    /// rotates them) rather than the validator's own.
    public init(
        verifier: SigV4Verifier? = nil, apiKeys: [String: String] = [:], tokenValidator: IDTokenValidator? = nil,
        keySet: JSONWebKeySetCache? = nil, clock: TimeSource = .system
    ) {
        self.verifier = verifier
        self.apiKeys = apiKeys.filter { !$0.key.isEmpty }
        self.tokenValidator = tokenValidator
        self.keySet = keySet
        self.clock = clock
    }

    /// The modes this authorizer accepts, in the order it tries them.
    public var modes: [AuthMode] {
        (verifier == nil ? [] : [.awsIAM]) + (apiKeys.isEmpty ? [] : [.apiKey]) + (tokenMode.map { [$0] } ?? [])
    }

    /// True when deciding on `request` needs its body: a signature covers the body's hash.
    public func needsBody(_ request: HTTPRequest) -> Bool {
        verifier != nil && Self.isSigned(request)
    }

    /// Why a signed `request` is refused on its head alone (`SigV4Verifier.failureBeforeBody(_:now:)`):
    /// a server asks before it reads a byte of the body, so a request that cannot pass costs
    /// no spooling. Nil when the request is not signed, or when only its body can decide.
    public func rejectionBeforeBody(_ request: HTTPRequest) async -> InboundRejection? {
        guard let verifier, Self.isSigned(request) else { return nil }
        if let rejection = Self.unverifiableBody(request) { return rejection }
        if let failure = await verifier.failureBeforeBody(request, now: now()) { return .signature(failure) }
        // A body hash declared in `x-amz-content-sha256` is what the signature covers: the
        // signature is checked against it now, and the body against it once it has come, so
        // a forged signature with a known key id costs no spooling either.
        guard let claimed = request.headerFields[.amzContentSHA256], claimed.utf8.count == 64 else { return nil }
        if case .failure(let failure) = await verifier.verify(request, payload: .sha256(claimed.lowercased()), now: now()) {
            return .signature(failure)
        }
        return nil
    }

    /// The principal `request` proves, or why it is turned away. `body` is the body as
    /// received, when ``needsBody(_:)`` asked for it.
    public func authorize(_ request: HTTPRequest, body: [UInt8]?) async -> Result<Principal, InboundRejection> {
        await authorize(request, bodySHA256: body.map { SHA256Hasher.hash($0).hex })
    }

    /// The principal `request` proves, or why it is turned away, given the lowercase hex
    /// SHA-256 of the body as received (when ``needsBody(_:)`` asked for it): a server that
    /// hashes a body as it arrives, without holding it, decides with this.
    public func authorize(_ request: HTTPRequest, bodySHA256: String?) async -> Result<Principal, InboundRejection> {
        if let verifier, Self.isSigned(request) { return await verifySignature(request, bodySHA256: bodySHA256, with: verifier) }
        if let decision = apiKeyDecision(request) { return decision }
        if let tokenValidator, let token = Self.bearerToken(request) {
            do throws(InvalidTokenError) {
                var validator = tokenValidator
                if let keySet { validator = validator.using(await keySet.keys(for: try JSONWebToken(parsing: token).header.kid)) }
                return tokenDecision(token, validator)
            } catch {
                return .failure(.invalidToken(error.description))
            }
        }
        return .failure(.missingToken(accepting: modes))
    }

    /// The decision on `request` when it can be made without waiting (a SigV4 verifier with a
    /// table of credentials, API keys, a JWT whose key is held and fresh, a missing
    /// credential), the same as ``authorize(_:bodySHA256:)`` would give with `bodySHA256` (nil:
    /// no body); nil when only that call can decide (a JWT whose key set is due for a fetch,
    /// or a verifier that looks its credentials up).
    package func authorizeWithoutSuspending(_ request: HTTPRequest, bodySHA256: String? = nil) -> Result<Principal, InboundRejection>? {
        if let verifier, Self.isSigned(request) {
            if let rejection = Self.unverifiableBody(request) { return .failure(rejection) }
            let hash = bodySHA256 ?? PayloadHash.emptySHA256
            return verifier.verifyWithTable(request, payload: .sha256(hash), now: now()).map { Self.principal($0, request, bodySHA256: hash) }
        }
        if let decision = apiKeyDecision(request) { return decision }
        if let tokenValidator, let token = Self.bearerToken(request) {
            guard let keySet else { return tokenDecision(token, tokenValidator) }
            // A token seen before needs no parse: the fresh set must still hold its key.
            if let keys = keySet.keysWithoutWaiting(for: nil),
                let claims = validatedTokens.rememberedClaims(of: token, validator: tokenValidator.using(keys))
            {
                return .success(principal(claims))
            }
            let kid: String?
            do throws(InvalidTokenError) { kid = try JSONWebToken(parsing: token).header.kid } catch { return .failure(.invalidToken(error.description)) }
            guard let kid, let keys = keySet.keysWithoutWaiting(for: kid) else { return nil }
            return tokenDecision(token, tokenValidator.using(keys))
        }
        return .failure(.missingToken(accepting: modes))
    }

    /// The principal of a valid JWT: its subject, in its issuer's mode.
    private func principal(_ claims: JWTClaims) -> Principal {
        var strings: [String: String] = [:]
        for (name, value) in claims.members {
            switch value {
            case .string(let text): strings[name] = text
            case .array(let values): strings[name] = values.compactMap(\.stringValue).joined(separator: " ")
            default: break
            }
        }
        return Principal(mode: tokenMode ?? .openIDConnect, name: claims.subject ?? "(no sub)", claims: strings)
    }

    /// The principal a bearer `token` proves under `validator`'s keys, or why it is refused.
    private func tokenDecision(_ token: String, _ validator: IDTokenValidator) -> Result<Principal, InboundRejection> {
        do throws(InvalidTokenError) {
            return .success(principal(try validatedTokens.claims(of: token, validator: validator)))
        } catch {
            return .failure(.invalidToken(error.description))
        }
    }

    /// The decision on an `x-api-key`, when API keys are accepted and the request has one.
    private func apiKeyDecision(_ request: HTTPRequest) -> Result<Principal, InboundRejection>? {
        guard !apiKeys.isEmpty, request.headerFields.contains(Self.apiKeyField) else { return nil }
        // Read in place; a repeated key is refused, as its joined value named no key.
        guard let key = request.headerFields.onlyValue(Self.apiKeyField), !key.isEmpty else { return .failure(.forbiddenKey) }
        guard let name = apiKeys.first(where: { ConstantTime.equals($0.key, key) })?.value else {
            return .failure(.forbiddenKey)
        }
        return .success(Principal(mode: .apiKey, name: name))
    }

    private func verifySignature(_ request: HTTPRequest, bodySHA256: String?, with verifier: SigV4Verifier) async -> Result<Principal, InboundRejection> {
        let bodyHash = bodySHA256 ?? PayloadHash.emptySHA256
        if let rejection = Self.unverifiableBody(request) { return .failure(rejection) }
        return Self.principal(await verifier.verify(request, payload: .sha256(bodyHash), now: now()), request, bodySHA256: bodyHash)
    }

    /// A verification's outcome as the principal or a rejection; a verified signature still
    /// fails when the body does not hash to the `x-amz-content-sha256` it covers.
    private static func principal(
        _ verification: Result<String, VerificationFailure>, _ request: HTTPRequest, bodySHA256: String
    ) -> Result<Principal, InboundRejection> {
        switch verification {
        case .failure(let failure): return .failure(.signature(failure))
        case .success(let accessKeyId):
            if let rejection = contentHashMismatch(request, bodySHA256: bodySHA256) { return .failure(rejection) }
            return .success(Principal(mode: .awsIAM, name: accessKeyId))
        }
    }

    /// A hex `x-amz-content-sha256` is what the signature covers; the body must hash to it.
    static func contentHashMismatch(_ request: HTTPRequest, bodySHA256: String) -> InboundRejection? {
        guard let claimed = request.headerFields[.amzContentSHA256], claimed.utf8.count == 64 else { return nil }
        guard bodySHA256 != claimed.lowercased() else { return nil }
        return InboundRejection(
            status: .badRequest, errorType: "XAmzContentSHA256Mismatch",
            message: "The provided 'x-amz-content-sha256' header does not match what was computed.", reason: "body hash mismatch")
    }

    /// An aws-chunked body (`x-amz-content-sha256: STREAMING-…`) is refused: its chunks carry
    /// signatures of their own, which are not checked here, so its bytes would pass
    /// unverified. API Gateway does not take such bodies either; S3 does.
    static func unverifiableBody(_ request: HTTPRequest) -> InboundRejection? {
        guard let claimed = request.headerFields.firstValue(.amzContentSHA256), claimed.hasPrefix("STREAMING-") else { return nil }
        return InboundRejection(
            status: .badRequest, errorType: "BadRequestException", message: "aws-chunked request bodies are not supported.",
            reason: "aws-chunked body (\(claimed)): chunk signatures are not verified")
    }

    /// `x-api-key`.
    public static let apiKeyField = HTTPField.Name("x-api-key")!

    /// True when the request carries a SigV4 or SigV4a signature, in a header or the query.
    package static func isSigned(_ request: HTTPRequest) -> Bool {
        if let authorization = request.headerFields.firstValue(.authorization), authorization.hasPrefix("AWS4-") { return true }
        guard let path = request.path, let mark = path.firstIndex(of: "?") else { return false }
        return path[mark...].contains("X-Amz-Signature=") || path[mark...].contains("X-Amz-Algorithm=")
    }

    /// The JWT in `Authorization`, with or without a `Bearer ` prefix.
    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let value = request.headerFields[.authorization], !value.isEmpty else { return nil }
        return value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : value
    }
}

extension InboundAuthorizer {
    /// The time of receipt on ``clock``.
    func now() -> SigningDate { SigningDate(secondsSince1970: Int64(clock.now().rounded(.down))) }
}

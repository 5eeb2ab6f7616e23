import MultiAuthCore
import HTTPTypes
import MultiAuthCrypto

/// What a verifier knows about an access key id.
public struct VerifierCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret that signs for the key id.
    public let secretAccessKey: String
    /// When set, the request must carry exactly this session token.
    public let sessionToken: String?

    /// Creates an entry.
    public init(secretAccessKey: String, sessionToken: String? = nil) {
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// Always redacted.
    public var description: String { "VerifierCredential(\(Redaction.placeholder))" }
    /// Always redacted.
    public var debugDescription: String { description }
}

/// Why a request was rejected. Never includes a secret or the expected signature.
public enum VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither an `Authorization` header nor an `X-Amz-Signature` query parameter.
    case missingAuthorization
    /// A part of the authorization is missing or unreadable; the value names the part.
    case malformedAuthorization(String)
    /// An authorization parameter or header is given more than once.
    case repeatedParameter(String)
    /// The algorithm is not `AWS4-HMAC-SHA256`.
    case unsupportedAlgorithm(String)
    /// The lookup knows no secret for this access key id.
    case unknownAccessKey(String)
    /// The credential requires a session token that the request lacks or gets wrong.
    case sessionTokenMismatch
    /// The credential scope's date, region or service is not this verifier's.
    case scopeMismatch(String)
    /// The signing time is older than the allowed skew (or the presigned expiry).
    case expired
    /// The signing time is further in the future than the allowed skew.
    case notYetValid
    /// `SignedHeaders` does not include `host`.
    case hostNotSigned
    /// The recomputed signature differs from the received one.
    case signatureMismatch

    /// What went wrong, without any secret.
    public var description: String {
        switch self {
        case .missingAuthorization: "no Authorization header or X-Amz-Signature parameter"
        case .malformedAuthorization(let what): "malformed authorization: \(what)"
        case .repeatedParameter(let name): "\(name) is given more than once"
        case .unsupportedAlgorithm(let name): "unsupported algorithm '\(name)'"
        case .unknownAccessKey(let id): "unknown access key id '\(id)'"
        case .sessionTokenMismatch: "the session token is missing or wrong"
        case .scopeMismatch(let field): "the credential scope's \(field) does not match"
        case .expired: "the signature has expired"
        case .notYetValid: "the signature is not yet valid"
        case .hostNotSigned: "the host header is not signed"
        case .signatureMismatch: "the signature does not match"
        }
    }
}

/// Checks incoming SigV4 and SigV4a requests (header or presigned form), as a server does:
/// the canonical request is recomputed from the received wire form with the same stages as
/// ``SigV4Signer``; SigV4 signatures are compared in constant time, SigV4a (ECDSA P-256)
/// signatures are checked against the public key derived from the secret, as the
/// specification derives it, and the region set must include the verifier's region. It never
/// throws on hostile input: every problem is a ``VerificationFailure``.
public struct SigV4Verifier: Sendable {
    let region: String
    let service: String
    let lookup: @Sendable (String) async -> VerifierCredential?
    let options: SigningOptions
    /// Allowed difference between the signing time and now for header signatures (15 min).
    public let allowedSkew: Int64
    private let signers = VerifierSignerCache()
    /// The verifier's own derived-key cache, shared by its signers.
    private let keyCache = SigningKeyCache()
    /// `/region/service/aws4_request`, the scope after its date.
    private let scopeSuffix: [UInt8]
    /// `/service/aws4_request`, SigV4a's scope after its date (it has no region).
    private let sigV4aScopeSuffix: [UInt8]

    /// Creates a verifier for `service` in `region`; `lookup` maps an access key id to its secret.
    /// `options` are the service's canonicalization rules (default: ``SigningOptions/defaults(forService:)``).
    public init(
        region: String, service: String, options: SigningOptions? = nil, allowedSkew: Int64 = 15 * 60,
        lookup: @escaping @Sendable (String) async -> VerifierCredential?
    ) {
        self.region = region
        self.service = service
        self.options = options ?? .defaults(forService: service)
        self.allowedSkew = allowedSkew
        self.lookup = lookup
        scopeSuffix = Array("/\(region)/\(service)/aws4_request".utf8)
        sigV4aScopeSuffix = Array("/\(service)/aws4_request".utf8)
    }

    /// Verifies `request` as received at `now`, with `payload` the body it arrived with (or
    /// its hash); returns the access key id that signed it.
    public func verify(_ request: HTTPRequest, payload: Payload = .empty, now: SigningDate) async -> Result<String, VerificationFailure> {
        guard let signable = try? SignableRequest(request, payload: payload) else { return .failure(.hostNotSigned) }
        return await verify(signable, now: now)
    }

    /// Verifies a request in the signer's own form (the raw request text of the suites).
    package func verify(_ request: SignableRequest, now: SigningDate) async -> Result<String, VerificationFailure> {
        let parsed: ReceivedAuthorization
        switch ReceivedAuthorization.parse(request) {
        case .failure(let failure): return .failure(failure)
        case .success(let value): parsed = value
        }
        if let failure = checkScopeAndTime(parsed, now: now) { return .failure(failure) }
        let accessKeyId = parsed.accessKeyIdText
        guard let known = await lookup(accessKeyId) else { return .failure(.unknownAccessKey(accessKeyId)) }
        if let expected = known.sessionToken, parsed.sessionToken != expected { return .failure(.sessionTokenMismatch) }
        guard parsed.signsHeader("host") else { return .failure(.hostNotSigned) }
        let matches: Bool
        if parsed.isSigV4a {
            matches = sigV4aSignatureMatches(request, parsed, accessKeyId, known, presignedTokenSigned: true)
                || (parsed.presigned != nil && parsed.sessionToken != nil
                    && sigV4aSignatureMatches(request, parsed, accessKeyId, known, presignedTokenSigned: false))
        } else if parsed.presigned != nil, parsed.sessionToken != nil {
            // A presigned URL does not say whether its token was signed or appended afterwards: try both.
            matches = signatureMatches(request, parsed, accessKeyId, known.secretAccessKey, presignedTokenSigned: true)
                || signatureMatches(request, parsed, accessKeyId, known.secretAccessKey, presignedTokenSigned: false)
        } else {
            matches = signatureMatches(request, parsed, accessKeyId, known.secretAccessKey, presignedTokenSigned: nil)
        }
        return matches ? .success(accessKeyId) : .failure(.signatureMismatch)
    }

    private func checkScopeAndTime(_ parsed: ReceivedAuthorization, now: SigningDate) -> VerificationFailure? {
        if parsed.isSigV4a {
            if let failure = sigV4aScopeFailure(parsed) { return failure }
        } else if !scopeMatches(parsed) {
            return scopeFailure(parsed)
        }
        let age = now.secondsSince1970 - parsed.date.secondsSince1970
        if age > (parsed.presigned.map { Int64($0.expires) } ?? allowedSkew) { return .expired }
        if age < -allowedSkew { return .notYetValid }
        return nil
    }

    /// The usual case, on bytes: the scope is the signing date followed by this verifier's suffix.
    private func scopeMatches(_ parsed: ReceivedAuthorization) -> Bool {
        parsed.date.scopeDate.withUTF8InPlace { date in
            scopeSuffix.withUnsafeBufferPointer { suffix in
                parsed.withBytes(of: parsed.scope) { received in
                    received.count == date.count + suffix.count
                        && ByteComparison.equal(UnsafeBufferPointer(rebasing: received[..<date.count]), date)
                        && ByteComparison.equal(UnsafeBufferPointer(rebasing: received[date.count...]), suffix)
                }
            }
        }
    }

    /// SigV4a's scope is `date/service/aws4_request`, and its region set must include this
    /// verifier's region (`*` and `prefix-*` patterns match as the SDKs expand them).
    private func sigV4aScopeFailure(_ parsed: ReceivedAuthorization) -> VerificationFailure? {
        let scope = parsed.scopePieces
        guard scope.count == 3, scope[2] == "aws4_request" else { return .malformedAuthorization("credential scope") }
        guard scope[0] == parsed.date.scopeDate else { return .scopeMismatch("date") }
        guard scope[1] == service else { return .scopeMismatch("service") }
        let patterns = (parsed.regionSet ?? "").split(separator: ",").map { String($0).trimmingHTTPWhitespace() }
        guard patterns.contains(where: { Self.region(region, matches: $0) }) else { return .scopeMismatch("region set") }
        return nil
    }

    /// `pattern` is a region name, or has `*` standing for any run of characters.
    static func region(_ region: String, matches pattern: String) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard pieces.count > 1 else { return region == pattern }
        var rest = Substring(region)
        guard rest.hasPrefix(pieces[0]) else { return false }
        rest = rest.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() {
            guard let found = rest.firstRange(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(pieces[pieces.count - 1])
    }

    /// Which part of a scope that did not match is wrong.
    private func scopeFailure(_ parsed: ReceivedAuthorization) -> VerificationFailure {
        let scope = parsed.scopePieces
        guard scope.count == 4, scope[3] == "aws4_request" else { return .malformedAuthorization("credential scope") }
        guard scope[0] == parsed.date.scopeDate else { return .scopeMismatch("date") }
        guard scope[1] == region else { return .scopeMismatch("region") }
        return .scopeMismatch("service")
    }

    /// Recomputes the signature with the signer's stages from the signed headers only and
    /// compares it with the received one in constant time. False when the received values
    /// cannot be signed at all.
    private func signatureMatches(
        _ request: SignableRequest, _ parsed: ReceivedAuthorization, _ accessKeyId: String, _ secret: String,
        presignedTokenSigned: Bool?
    ) -> Bool {
        let tokenSigned = presignedTokenSigned ?? parsed.signsHeader("x-amz-security-token")
        let key = VerifierSignerCache.Key(
            accessKeyId: accessKeyId, secret: secret, token: tokenSigned ? parsed.sessionToken : nil, tokenSigned: tokenSigned)
        let signer = signers.signer(for: key) ?? signers.insert(makeSigner(key), for: key)
        var unsigned = request
        unsigned.headers = Self.signedHeadersOnly(request.headers, parsed)
        if let presigned = parsed.presigned {
            unsigned.query = presigned.query
            guard let signature = try? signer.presignSignature(unsigned, expires: presigned.expires, date: parsed.date) else { return false }
            return Self.sameSignature(signature, parsed)
        }
        // A signed header the request does not carry cannot be reproduced: the lists differ.
        guard let result = try? signer.headerSignature(unsigned, date: parsed.date),
            parsed.signedHeadersEqual(result.signedHeaders)
        else { return false }
        return Self.sameSignature(result.signature, parsed)
    }

    /// Rebuilds the SigV4a string to sign (the signer's stages, no signing) and checks the
    /// received DER signature over its SHA-256 with the key pair's derived public key.
    private func sigV4aSignatureMatches(
        _ request: SignableRequest, _ parsed: ReceivedAuthorization, _ accessKeyId: String, _ known: VerifierCredential,
        presignedTokenSigned: Bool
    ) -> Bool {
        let tokenSigned = parsed.presigned == nil ? parsed.signsHeader("x-amz-security-token") : presignedTokenSigned
        var options = self.options
        options.signsContentSHA256Header = false
        options.omitsSessionToken = !tokenSigned
        let credentials = AWSCredentials(
            accessKeyId: accessKeyId, secretAccessKey: known.secretAccessKey, sessionToken: tokenSigned ? parsed.sessionToken : nil)
        guard let regionSet = parsed.regionSet,
            let signer = try? SigV4Signer(credentials: credentials, regionSet: regionSet, service: service, options: options),
            let key = try? SigV4aKeyCache.shared.key(accessKeyId: accessKeyId, secret: known.secretAccessKey),
            let signature = try? Hex.decode(String(decoding: parsed.storage[parsed.signature], as: UTF8.self))
        else { return false }
        var unsigned = request
        unsigned.headers = Self.signedHeadersOnly(request.headers, parsed)
        let stringToSign: [UInt8]
        if let presigned = parsed.presigned {
            unsigned.query = presigned.query
            guard let text = try? signer.presignStringToSign(unsigned, expires: presigned.expires, date: parsed.date) else { return false }
            stringToSign = text
        } else {
            guard let result = try? signer.headerStringToSign(unsigned, date: parsed.date), parsed.signedHeadersEqual(result.signedHeaders)
            else { return false }
            stringToSign = result.stringToSign
        }
        return P256SigningKey.verify(
            signature: signature, digest: SHA256Hasher.hash(stringToSign), publicX: key.publicKey.x, publicY: key.publicKey.y)
    }

    /// The headers that take part: the signed ones, without `X-Amz-Date` and (SigV4a)
    /// `X-Amz-Region-Set` (the signer adds them from the parsed values) and `Authorization`;
    /// with room for what the signer appends, so that it need not copy the list again.
    private static func signedHeadersOnly(_ headers: HTTPHeaderList, _ parsed: ReceivedAuthorization) -> HTTPHeaderList {
        var kept = HTTPHeaderList()
        kept.reserveCapacity(headers.count + 4)
        for field in headers.fields where parsed.signsHeader(field.name, ignoringCase: true) {
            if !HTTPHeaderList.namesMatch(field.name, "x-amz-date"), !HTTPHeaderList.namesMatch(field.name, "authorization"),
                !(parsed.isSigV4a && HTTPHeaderList.namesMatch(field.name, "x-amz-region-set")) {
                kept.append(name: field.name, value: field.value)
            }
        }
        return kept
    }

    private func makeSigner(_ key: VerifierSignerCache.Key) -> SigV4Signer {
        var options = self.options
        options.signsContentSHA256Header = false
        options.omitsSessionToken = !key.tokenSigned
        let credentials = AWSCredentials(accessKeyId: key.accessKeyId, secretAccessKey: key.secret, sessionToken: key.token)
        return SigV4Signer(credentials: credentials, region: region, service: service, options: options, keyCache: keyCache)
    }

    /// Compares the recomputed signature, hex-encoded on the stack, with the received hex in
    /// constant time.
    private static func sameSignature(_ expected: SignatureValue, _ parsed: ReceivedAuthorization) -> Bool {
        guard expected.hexCount == parsed.signature.count else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: expected.hexCount) { buffer in
            var writer = ByteWriter(buffer)
            expected.appendHex(to: &writer)
            return parsed.storage[parsed.signature].withUnsafeBytes { received in
                ConstantTime.equals(UnsafeRawBufferPointer(writer.written), received)
            }
        }
    }
}

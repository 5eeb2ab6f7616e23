import MultiAuthCore
import HTTPTypes
import MultiAuthCrypto

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) and SigV4a (`AWS4-ECDSA-P256-SHA256`):
/// header signing and presigned URLs.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
/// let request = try HTTPRequest(method: .get, wireURL: "https://abc.execute-api.us-east-1.amazonaws.com/prod/items")
/// let signed = try signer.signHeaders(request, payload: .empty, date: .now())
/// // try signed.signedRequest().headerFields now carries X-Amz-Date and Authorization.
/// ```
public struct SigV4Signer: Sendable {
    /// The SigV4 algorithm name (see ``SigningAlgorithm/name`` for SigV4a's).
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The longest presigned-URL lifetime AWS accepts, in seconds (7 days).
    public static let maximumExpiry = 604_800

    /// The key pair (and session token) that signs.
    public let credentials: AWSCredentials
    /// The region in the credential scope.
    public let region: String
    /// The service signing name in the credential scope (`execute-api`, `appsync`, `s3`, …).
    public let service: String
    /// Path, payload and token rules; defaults follow the service.
    public let options: SigningOptions
    /// Where derived keys are cached; `nil` derives the key on every signature.
    public let keyCache: SigningKeyCache?
    /// SigV4 or SigV4a (with its region set).
    public let signingAlgorithm: SigningAlgorithm

    /// Byte strings that are the same for every signature of this signer, made once.
    private let algorithmLine: [UInt8]
    private let scopeSuffix: [UInt8]
    private let credentialPrefix: [UInt8]
    /// A control character in a value that goes on the wire, found once here and reported by
    /// every signing call.
    private let unsafeInput: SigningError?

    /// Creates a SigV4 signer. `options` defaults to ``SigningOptions/defaults(forService:)``.
    /// Derived keys are cached in `keyCache`: by default one of the signer's own (keep the
    /// signer, or pass a cache you keep, such as ``SigningKeyCache/shared``); `nil` derives
    /// the key on every signature.
    public init(
        credentials: AWSCredentials, region: String, service: String,
        options: SigningOptions? = nil, keyCache: SigningKeyCache? = SigningKeyCache()
    ) {
        self.init(credentials: credentials, region: region, service: service, algorithm: .sigV4, options: options, keyCache: keyCache)
    }

    /// Creates a SigV4a signer valid in `regionSet` (`us-east-1,us-west-2`, or `*` for all).
    /// - Throws: ``SigningError/invalidRegionSet(_:)`` for a malformed set.
    public init(
        credentials: AWSCredentials, regionSet: String, service: String, options: SigningOptions? = nil
    ) throws(SigningError) {
        let set = try SigningAlgorithm.validatedRegionSet(regionSet)
        self.init(credentials: credentials, region: set, service: service, algorithm: .sigV4a(regionSet: set),
                  options: options, keyCache: nil)
    }

    private init(
        credentials: AWSCredentials, region: String, service: String, algorithm: SigningAlgorithm,
        options: SigningOptions?, keyCache: SigningKeyCache?
    ) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.options = options ?? .defaults(forService: service)
        self.keyCache = keyCache
        signingAlgorithm = algorithm
        algorithmLine = Array("\(algorithm.name)\n".utf8)
        switch algorithm {
        case .sigV4: scopeSuffix = CredentialScope.suffix(region: region, service: service)
        case .sigV4a: scopeSuffix = CredentialScope.suffix(service: service)
        }
        credentialPrefix = Array("\(algorithm.name) Credential=\(credentials.accessKeyId)/".utf8)
        unsafeInput =
            if !WireText.isSafe(credentials.accessKeyId) { .controlCharacter(in: "the access key id") }
            else if !WireText.isSafe(credentials.sessionToken ?? "") { .controlCharacter(in: "the session token") }
            else if !WireText.isSafe(region) { .controlCharacter(in: "the region") }
            else if !WireText.isSafe(service) { .controlCharacter(in: "the service") }
            else { nil }
    }

    private var regionSet: String? {
        if case .sigV4a(let set) = signingAlgorithm { return set }
        return nil
    }

    /// Signs with an `Authorization` header, adding `X-Amz-Date` (and the session token
    /// and `x-amz-content-sha256` when they apply). Existing `Authorization` and
    /// `X-Amz-Date` headers are replaced. `payload` is the body as the signature covers it.
    public func signHeaders(_ request: HTTPRequest, payload: Payload, date: SigningDate) throws(SigningError) -> SigningResult {
        var result = try signHeaders(SignableRequest(request, payload: payload), date: date)
        result.signedHTTPRequest = SignedHTTPRequest.applying(result.signable, to: request)
        return result
    }

    /// Signs in the query string: a presigned URL valid for `expires` seconds (1…604800).
    public func presign(_ request: HTTPRequest, payload: Payload = .empty, expires: Int, date: SigningDate) throws(SigningError) -> SigningResult {
        try presign(SignableRequest(request, payload: payload), expires: expires, date: date)
    }

    /// Header signing of the signer's own request form.
    package func signHeaders(_ request: consuming SignableRequest, date: SigningDate) throws(SigningError) -> SigningResult {
        var (stages, signedHeaders, headers) = try headerStages(request, date: date)
        let authorization = authorizationValue(scope: stages.scope, signedHeaders: signedHeaders, signature: stages.signature)
        if let token = credentials.sessionToken, options.omitsSessionToken { headers.append(name: "X-Amz-Security-Token", value: token) }
        headers.append(name: "Authorization", value: authorization)
        var signed = request
        signed.headers = headers
        return SigningResult(
            canonicalRequestBytes: stages.canonical, stringToSignBytes: stages.stringToSign,
            signatureValue: stages.signature, signedHeaders: signedHeaders, authorization: authorization,
            signable: signed, scope: stages.scope, isPresigned: false)
    }

    /// The hex signature and `SignedHeaders` list header signing would produce, without
    /// building the signed request: the verifier's path.
    package func headerSignature(_ request: SignableRequest, date: SigningDate) throws(SigningError) -> (signature: SignatureValue, signedHeaders: String) {
        let (stages, signedHeaders, _) = try headerStages(request, date: date)
        return (stages.signature, signedHeaders)
    }

    /// The string to sign and `SignedHeaders` list header signing would produce, without
    /// signing: the verifier's path for SigV4a, whose signatures are checked, not recomputed.
    package func headerStringToSign(_ request: SignableRequest, date: SigningDate) throws(SigningError) -> (stringToSign: [UInt8], signedHeaders: String) {
        let (stages, signedHeaders, _) = try headerStages(request, date: date, signing: false)
        return (stages.stringToSign, signedHeaders)
    }

    /// Header signing up to the signature: the headers to send (without Authorization), the
    /// signed-header list and the stages.
    private func headerStages(_ request: SignableRequest, date: SigningDate, signing: Bool = true) throws(SigningError) -> (Stages, String, HTTPHeaderList) {
        try credentials.validate()
        if let unsafeInput { throw unsafeInput }
        let payloadHash = try payloadHashForHeaderSigning(request)
        var headers = try headersWithHost(request, extra: 4)
        headers.removeAll(named: "authorization")
        headers.removeAll(named: "x-amz-date")
        let token = credentials.sessionToken
        if token != nil { headers.removeAll(named: "x-amz-security-token") }
        if let token, !options.omitsSessionToken { headers.append(name: "X-Amz-Security-Token", value: token) }
        headers.append(name: "X-Amz-Date", value: date.amzDate)
        if let regionSet {
            headers.removeAll(named: "x-amz-region-set")
            headers.append(name: "X-Amz-Region-Set", value: regionSet)
        }
        if options.signsContentSHA256Header, !headers.contains(named: "x-amz-content-sha256") {
            headers.append(name: "x-amz-content-sha256", value: payloadHash)
        }
        let canonicalHeaders = CanonicalHeaders(headers)
        let signedHeaders = canonicalHeaders.signedHeaders
        let stages = try computeStages(
            request, headers: canonicalHeaders, signedHeaders: signedHeaders, extraQuery: [],
            payloadHash: payloadHash, date: date, signing: signing)
        return (stages, signedHeaders, headers)
    }

    /// Query signing of the signer's own request form. The caller's query is kept byte for
    /// byte; the `X-Amz-*` parameters are appended.
    package func presign(_ request: consuming SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> SigningResult {
        var (stages, signedHeaders, headers, authParameters) = try presignStages(request, expires: expires, date: date)
        authParameters.append(("X-Amz-Signature", stages.signature.hex))
        if let token = credentials.sessionToken, options.omitsSessionToken { authParameters.append(("X-Amz-Security-Token", token)) }
        var signed = request
        signed.headers = headers
        signed.query = Self.appending(authParameters, to: signed.query)
        return SigningResult(
            canonicalRequestBytes: stages.canonical, stringToSignBytes: stages.stringToSign,
            signatureValue: stages.signature, signedHeaders: signedHeaders, authorization: nil,
            signable: signed, scope: stages.scope, isPresigned: true)
    }

    /// The signature presigning would produce, without building the URL: the verifier's path.
    package func presignSignature(_ request: SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> SignatureValue {
        try presignStages(request, expires: expires, date: date).0.signature
    }

    /// The string to sign presigning would produce, without signing (the SigV4a verifier's path).
    package func presignStringToSign(_ request: SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> [UInt8] {
        try presignStages(request, expires: expires, date: date, signing: false).0.stringToSign
    }

    /// Presigning up to the signature: the stages, the signed-header list, the headers and
    /// the `X-Amz-*` parameters that were signed.
    private func presignStages(
        _ request: SignableRequest, expires: Int, date: SigningDate, signing: Bool = true
    ) throws(SigningError) -> (Stages, String, HTTPHeaderList, [(String, String)]) {
        guard (1...Self.maximumExpiry).contains(expires) else { throw .expiresOutOfRange(expires) }
        try credentials.validate()
        if let unsafeInput { throw unsafeInput }
        let payloadHash = options.presignsUnsignedPayload ? PayloadHash.unsigned : try PayloadHash.value(for: request.payload)
        var headers = try headersWithHost(request, extra: 0)
        headers.removeAll(named: "authorization")
        let canonicalHeaders = CanonicalHeaders(headers)
        let signedHeaders = canonicalHeaders.signedHeaders
        let scope = CredentialScope(date: date, suffix: scopeSuffix)
        var authParameters: [(String, String)] = [
            ("X-Amz-Algorithm", signingAlgorithm.name),
            ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope.string)"),
            ("X-Amz-Date", date.amzDate),
            ("X-Amz-Expires", String(expires)),
        ]
        if let regionSet { authParameters.append(("X-Amz-Region-Set", regionSet)) }
        if let token = credentials.sessionToken, !options.omitsSessionToken { authParameters.append(("X-Amz-Security-Token", token)) }
        authParameters.append(("X-Amz-SignedHeaders", signedHeaders))
        let stages = try computeStages(
            request, headers: canonicalHeaders, signedHeaders: signedHeaders, extraQuery: authParameters,
            payloadHash: payloadHash, date: date, signing: signing)
        return (stages, signedHeaders, headers, authParameters)
    }

    private func payloadHashForHeaderSigning(_ request: SignableRequest) throws(SigningError) -> String {
        if let supplied = try PayloadHash.callerSuppliedContentSHA256(in: request.headers) { return supplied }
        return try PayloadHash.value(for: request.payload)
    }

    /// The request's headers with `Host` first when the request has none (from the URL).
    private func headersWithHost(_ request: SignableRequest, extra: Int) throws(SigningError) -> HTTPHeaderList {
        var headers = request.headers
        headers.reserveCapacity(extra + 1)
        if !headers.contains(named: "host") {
            guard let authority = request.authority, !authority.isEmpty else { throw .missingHost }
            headers.insert(name: "Host", value: authority, at: 0)
        }
        return headers
    }

    private func computeStages(
        _ request: SignableRequest, headers: CanonicalHeaders, signedHeaders: String,
        extraQuery: [(String, String)], payloadHash: String, date: SigningDate, signing: Bool = true
    ) throws(SigningError) -> Stages {
        let canonical = CanonicalRequest(
            method: request.method, path: request.path, options: options, wireQuery: request.query,
            extraQuery: extraQuery,
            headers: headers, signedHeaders: signedHeaders, payloadHash: payloadHash)
        let scope = CredentialScope(date: date, suffix: scopeSuffix)
        let stringToSign = StringToSign(algorithmLine: algorithmLine, scope: scope, canonicalRequest: canonical)
        let signature = signing ? try sign(stringToSign, date: date) : .ecdsa([])
        return Stages(canonical: canonical.bytes, stringToSign: stringToSign.bytes, signature: signature, scope: scope)
    }

    /// Stage 3: the signature over the string to sign.
    private func sign(_ stringToSign: StringToSign, date: SigningDate) throws(SigningError) -> SignatureValue {
        switch signingAlgorithm {
        case .sigV4:
            return .hmac(stringToSign.bytes.withUnsafeBytes { signingKey(date).authenticationCode(for: $0) })
        case .sigV4a:
            let key = try SigV4aKeyCache.shared.key(accessKeyId: credentials.accessKeyId, secret: credentials.secretAccessKey)
            do { return .ecdsa(try key.signature(for: SHA256Hasher.hash(stringToSign.bytes))) } catch {
                throw .keyDerivationFailed
            }
        }
    }

    func signingKeyForStreaming(_ date: SigningDate) -> HMACSHA256Key { signingKey(date) }

    private func signingKey(_ date: SigningDate) -> HMACSHA256Key {
        let secret = credentials.secretAccessKey
        if let keyCache {
            return keyCache.key(secret: secret, scopeDate: date.scopeDate, region: region, service: service)
        }
        return SigningKeyDerivation.derive(secret: secret, scopeDate: date.scopeDate, region: region, service: service)
    }

    /// `AWS4-HMAC-SHA256 Credential=AKID/scope, SignedHeaders=…, Signature=…`, built as bytes.
    private func authorizationValue(scope: CredentialScope, signedHeaders: String, signature: SignatureValue) -> String {
        let capacity = credentialPrefix.count + 8 + scope.suffix.count + 16 + signedHeaders.utf8.count + 12
            + signature.hexCount
        return ByteWriter.string(capacity: capacity) { out in
            out.write(credentialPrefix)
            out.write(scope.date.scopeDate)
            out.write(scope.suffix)
            out.write(", SignedHeaders=")
            out.write(signedHeaders)
            out.write(", Signature=")
            signature.appendHex(to: &out)
        }
    }

    /// Appends auth parameters to the caller's wire query, which is kept byte for byte.
    private static func appending(_ parameters: [(String, String)], to query: String) -> String {
        var out = [UInt8]()
        out.appendUTF8(query)
        for (key, value) in parameters {
            if !out.isEmpty { out.append(UInt8(ascii: "&")) }
            URIEncoding.append(encoding: key, to: &out)
            out.append(UInt8(ascii: "="))
            URIEncoding.append(encoding: value, to: &out)
        }
        return String(utf8Bytes: out)
    }

    private struct Stages {
        let canonical: [UInt8]
        let stringToSign: [UInt8]
        let signature: SignatureValue
        let scope: CredentialScope
    }
}

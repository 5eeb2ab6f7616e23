public import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import Synchronization

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
    public var credentials: AWSCredentials { setup.credentials }
    /// The region in the credential scope.
    public var region: String { setup.region }
    /// The service signing name in the credential scope (`execute-api`, `appsync`, `s3`, …).
    public var service: String { setup.service }
    /// Path, payload and token rules; defaults follow the service.
    public var options: SigningOptions { setup.options }
    /// Where derived keys are cached; `nil` derives the key on every signature.
    public var keyCache: SigningKeyCache? { setup.keyCache }
    /// SigV4 or SigV4a (with its region set).
    public var signingAlgorithm: SigningAlgorithm { setup.algorithm }

    /// Everything fixed for the signer's life, shared by its copies: a signer is passed
    /// around and captured freely, and copying it costs one reference.
    let setup: Setup

    /// Creates a SigV4 signer. `options` defaults to ``SigningOptions/defaults(forService:)``.
    /// Derived keys are cached in `keyCache`: by default one of the signer's own (keep the
    /// signer, or pass a cache you keep, such as ``SigningKeyCache/shared``); `nil` derives
    /// the key on every signature.
    public init(
        credentials: AWSCredentials, region: String, service: String,
        options: SigningOptions? = nil, keyCache: SigningKeyCache? = SigningKeyCache()
    ) {
        setup = Setup(
            credentials: credentials, region: region, service: service, algorithm: .sigV4,
            options: options ?? .defaults(forService: service), keyCache: keyCache)
    }

    /// Creates a SigV4a signer valid in `regionSet` (`us-east-1,us-west-2`, or `*` for all).
    /// - Throws: ``SigningError/invalidRegionSet(_:)`` for a malformed set.
    public init(
        credentials: AWSCredentials, regionSet: String, service: String, options: SigningOptions? = nil
    ) throws(SigningError) {
        let set = try SigningAlgorithm.validatedRegionSet(regionSet)
        setup = Setup(
            credentials: credentials, region: set, service: service, algorithm: .sigV4a(regionSet: set),
            options: options ?? .defaults(forService: service), keyCache: nil)
    }

    /// A signer's fixed configuration, and the byte strings every signature reuses.
    ///
    /// `@unchecked Sendable`: besides the `Mutex`es, everything is set in `init` and only read
    /// after; the constant bytes are written once there and freed only in `deinit`.
    final class Setup: @unchecked Sendable {
        let credentials: AWSCredentials
        let region: String
        let service: String
        let options: SigningOptions
        let keyCache: SigningKeyCache?
        let algorithm: SigningAlgorithm
        /// The algorithm name and a newline: the first line of the string to sign.
        let algorithmLine: UnsafeBufferPointer<UInt8>
        /// `/region/service/aws4_request` (`/service/aws4_request` for SigV4a).
        let scopeSuffix: UnsafeBufferPointer<UInt8>
        /// `ALGORITHM Credential=AKID/`, the start of the `Authorization` value.
        let credentialPrefix: UnsafeBufferPointer<UInt8>
        /// The one block the three byte strings above live in. They are read through
        /// pointers so that signing costs no reference counting for them; they stay valid as
        /// long as this object, which every signer copy and signing result holds.
        private let constants: UnsafeMutableBufferPointer<UInt8>
        /// The session token and SigV4a region set, read here once rather than through
        /// copies of `credentials` and `algorithm` on every signature.
        let sessionToken: String?
        let regionSet: String?
        /// The header fields of a header signature, without and with a caller-supplied
        /// `x-amz-content-sha256`: fixed for the signer, so worked out once.
        let headerFields: SignerFields
        let headerFieldsForSuppliedHash: SignerFields
        /// Why the signer cannot sign (missing credentials, a control character in a value
        /// that goes on the wire), found once here and reported by every signing call.
        let problem: SigningError?
        /// The key of the day last signed, in front of `keyCache`: the other parts of the
        /// scope are fixed for this signer, so the day alone finds it.
        let recentKey = Mutex<(day: Int64, key: HMACSHA256Key)?>(nil)
        /// `"AWS4" + secret` as a ready HMAC key: the first step of every key derivation,
        /// the same for each, so a signer without a key cache starts from here.
        let secretKey: HMACSHA256Key
        /// SigV4a's key, taken from ``SigV4aKeyCache/shared`` on first use and kept here, so
        /// later signatures skip the shared cache's lookup.
        private let ecdsaKey = Mutex<P256SigningKey?>(nil)

        init(
            credentials: AWSCredentials, region: String, service: String, algorithm: SigningAlgorithm,
            options: SigningOptions, keyCache: SigningKeyCache?
        ) {
            self.credentials = credentials
            self.region = region
            self.service = service
            self.options = options
            self.keyCache = keyCache
            self.algorithm = algorithm
            let suffix = switch algorithm {
            case .sigV4: CredentialScope.suffix(region: region, service: service)
            case .sigV4a: CredentialScope.suffix(service: service)
            }
            let parts = [Array("\(algorithm.name)\n".utf8), suffix, Array("\(algorithm.name) Credential=\(credentials.accessKeyId)/".utf8)]
            let block = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: parts.reduce(0) { $0 + $1.count })
            var offset = 0
            let pieces = parts.map { part in
                let slot = UnsafeMutableBufferPointer(rebasing: block[offset..<(offset + part.count)])
                _ = slot.initialize(from: part)
                offset += part.count
                return UnsafeBufferPointer(slot)
            }
            constants = block
            algorithmLine = pieces[0]
            scopeSuffix = pieces[1]
            credentialPrefix = pieces[2]
            secretKey = SigningKeyDerivation.secretKey(credentials.secretAccessKey)
            sessionToken = credentials.sessionToken
            if case .sigV4a(let set) = algorithm { regionSet = set } else { regionSet = nil }
            problem = Self.problem(credentials: credentials, region: region, service: service)
            let hasRegionSet = regionSet != nil
            headerFields = SignerFields(
                hasToken: sessionToken != nil, hasRegionSet: hasRegionSet, options: options, contentSHA256Supplied: false)
            headerFieldsForSuppliedHash = SignerFields(
                hasToken: sessionToken != nil, hasRegionSet: hasRegionSet, options: options, contentSHA256Supplied: true)
        }

        deinit { constants.deallocate() }

        /// The credential scope of a signature made at `date`, borrowing this object's bytes.
        func scope(_ date: SigningDate) -> CredentialScope { CredentialScope(date: date, suffix: scopeSuffix) }

        /// The SigV4a signing key of these credentials.
        func sigV4aKey() throws(SigningError) -> P256SigningKey {
            if let key = ecdsaKey.withLock({ $0 }) { return key }
            let key = try SigV4aKeyCache.shared.key(accessKeyId: credentials.accessKeyId, secret: credentials.secretAccessKey)
            ecdsaKey.withLock { $0 = key }
            return key
        }

        private static func problem(credentials: AWSCredentials, region: String, service: String) -> SigningError? {
            do { try credentials.validate() } catch { return error }
            if !WireText.isSafe(credentials.accessKeyId) { return .controlCharacter(in: "the access key id") }
            if !WireText.isSafe(credentials.sessionToken ?? "") { return .controlCharacter(in: "the session token") }
            if !WireText.isSafe(region) { return .controlCharacter(in: "the region") }
            if !WireText.isSafe(service) { return .controlCharacter(in: "the service") }
            return nil
        }
    }

    var regionSet: String? { setup.regionSet }

    /// The header fields of a header signature (see ``Setup/headerFields``).
    func headerFields(contentSHA256Supplied: Bool) -> SignerFields {
        contentSHA256Supplied ? setup.headerFieldsForSuppliedHash : setup.headerFields
    }

    /// Signs with an `Authorization` header, adding `X-Amz-Date` (and the session token
    /// and `x-amz-content-sha256` when they apply). Existing `Authorization` and
    /// `X-Amz-Date` headers are replaced. `payload` is the body as the signature covers it.
    public func signHeaders(_ request: HTTPRequest, payload: Payload, date: SigningDate) throws(SigningError) -> SigningResult {
        try checkReady()
        let supplied = request.headerFields.isEmpty ? nil : request.headerFields.first { $0.name == .amzContentSHA256 }?.value
        let payloadHash = try PayloadHash.forHeaderSigning(supplied: supplied, payload: payload)
        let fields = headerFields(contentSHA256Supplied: supplied != nil)
        let stages = try request.withSigningView { (view) throws(SigningError) in
            try self.stages(view, fields: fields, location: .headers, payloadHash: payloadHash, date: date)
        }
        // The value is a legal field value by construction: fixed ASCII, hex, and the key id,
        // region and service, which `Setup` refuses with a control character in them. So the
        // lenient check (no NUL, CR or LF) passes exactly what the strict one would, at a
        // third of its cost per byte (callgrind: 29.6k to 28.7k instructions per GET).
        let authorization = withAuthorizationBytes(stages) { HTTPField(name: .authorization, lenientValue: $0) }
        let signed = fields.applied(to: request, .init(signer: self, date: date, payloadHash: payloadHash), authorization: authorization)
        return result(stages, signed: .http(signed, payload))
    }

    /// Signs in the query string: a presigned URL valid for `expires` seconds (1…604800).
    public func presign(_ request: HTTPRequest, payload: Payload = .empty, expires: Int, date: SigningDate) throws(SigningError) -> SigningResult {
        let stages = try request.withSigningView { (view) throws(SigningError) in
            try presignStages(view, payload: payload, expires: expires, date: date)
        }
        var signed = request
        if !signed.headerFields.isEmpty { signed.headerFields[.authorization] = nil }
        signed.path = withPresignedParameters(stages) { PresignedQuery.target(request.path ?? "/", appending: $0) }
        return result(stages, signed: .http(signed, payload))
    }

    /// Header signing of the signer's own request form.
    package func signHeaders(_ request: consuming SignableRequest, date: SigningDate) throws(SigningError) -> SigningResult {
        try checkReady()
        let supplied = request.headers.first(named: "x-amz-content-sha256")
        let payloadHash = try PayloadHash.forHeaderSigning(supplied: supplied, payload: request.payload)
        let fields = headerFields(contentSHA256Supplied: supplied != nil)
        let stages = try request.withSigningView { (view) throws(SigningError) in
            try self.stages(view, fields: fields, location: .headers, payloadHash: payloadHash, date: date)
        }
        let authorization = withAuthorizationBytes(stages) { String(decoding: $0, as: UTF8.self) }
        var signed = request
        signed.insertHostIfMissing()
        signed.headers = fields.applied(to: signed.headers, .init(signer: self, date: date, payloadHash: payloadHash), authorization: authorization)
        return result(stages, signed: .signable(signed))
    }

    /// Query signing of the signer's own request form. The caller's query is kept byte for
    /// byte; the `X-Amz-*` parameters are appended.
    package func presign(_ request: consuming SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> SigningResult {
        let payload = request.payload
        let stages = try request.withSigningView { (view) throws(SigningError) in
            try presignStages(view, payload: payload, expires: expires, date: date)
        }
        var signed = request
        signed.insertHostIfMissing()
        signed.headers.removeAll(named: "authorization")
        signed.query = withPresignedParameters(stages) { PresignedQuery.query(signed.query, appending: $0) }
        return result(stages, signed: .signable(signed))
    }

    /// Header signing whose signature another algorithm makes (``X509Signer``): `request` with
    /// the signer's fields and an empty `Authorization`, and the canonical request's bytes,
    /// signed header names and scope, from which the caller builds the string to sign.
    package func unsignedHeaderSigning(
        _ request: HTTPRequest, payload: Payload, date: SigningDate
    ) throws(SigningError) -> (request: HTTPRequest, canonicalRequest: [UInt8], signedHeaders: String, scope: String) {
        try checkReady()
        let supplied = request.headerFields.first { $0.name == .amzContentSHA256 }?.value
        let payloadHash = try PayloadHash.forHeaderSigning(supplied: supplied, payload: payload)
        let fields = headerFields(contentSHA256Supplied: supplied != nil)
        let stages = try request.withSigningView { (view) throws(SigningError) in
            try self.stages(view, fields: fields, location: .headers, payloadHash: payloadHash, date: date, signing: false)
        }
        let values = SignerFields.Values(signer: self, date: date, payloadHash: payloadHash)
        let signed = fields.applied(to: request, values, authorization: HTTPField(name: .authorization, value: ""))
        let names = String(decoding: stages.canonical.bytes[stages.canonical.signedHeadersRange], as: UTF8.self)
        return (signed, stages.canonical.bytes, names, stages.scope.string)
    }

    /// Stages 1–3 of header signing over a request's parts, without building the signed
    /// request: the verifier's path (with `signing` false for SigV4a, whose signatures are
    /// checked against the string to sign, not recomputed). `supplied` is the request's
    /// `x-amz-content-sha256`, if it has one.
    func headerStages(
        _ request: RequestView<some HeaderFieldSource>, payload: Payload, supplied: String?, date: SigningDate, signing: Bool = true
    ) throws(SigningError) -> SigningStages {
        try checkReady()
        let payloadHash = try PayloadHash.forHeaderSigning(supplied: supplied, payload: payload)
        let fields = headerFields(contentSHA256Supplied: supplied != nil)
        return try stages(request, fields: fields, location: .headers, payloadHash: payloadHash, date: date, signing: signing)
    }

    /// Stages 1–3 of presigning over a request's parts, without building the URL.
    func presignStages(
        _ request: RequestView<some HeaderFieldSource>, payload: Payload, expires: Int, date: SigningDate, signing: Bool = true
    ) throws(SigningError) -> SigningStages {
        try checkReady()
        let payloadHash = try presignPayloadHash(payload)
        return try stages(request, fields: .none, location: .query(expires: expires), payloadHash: payloadHash, date: date, signing: signing)
    }

    private func checkReady() throws(SigningError) {
        if let problem = setup.problem { throw problem }
    }

    private func presignPayloadHash(_ payload: Payload) throws(SigningError) -> String {
        options.presignsUnsignedPayload ? PayloadHash.unsigned : try PayloadHash.value(for: payload)
    }

    private func result(_ stages: SigningStages, signed: SigningResult.SignedForm) -> SigningResult {
        SigningResult(
            canonicalRequestBytes: stages.canonical.bytes, signatureValue: stages.signature,
            signedHeadersRange: stages.canonical.signedHeadersRange, setup: setup, date: stages.scope.date,
            isPresigned: stages.presignParameters != nil, signed: signed)
    }

    /// Stage 2's bytes, for SigV4a verification.
    func stringToSign(_ stages: SigningStages) -> [UInt8] {
        StringToSign.bytes(algorithmLine: setup.algorithmLine, scope: stages.scope, canonicalRequest: stages.canonical.bytes)
    }

    /// Runs `body` with `AWS4-HMAC-SHA256 Credential=AKID/scope, SignedHeaders=…, Signature=…`
    /// in temporary storage.
    private func withAuthorizationBytes<Result>(_ stages: SigningStages, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        Self.withAuthorizationBytes(
            setup: setup, scope: stages.scope, canonicalRequest: stages.canonical.bytes,
            signedHeaders: stages.canonical.signedHeadersRange, signature: stages.signature, body)
    }

    /// The `Authorization` value from a signature's parts; a ``SigningResult`` rebuilds it
    /// from what it keeps rather than holding a second copy of the string.
    static func withAuthorizationBytes<Result>(
        setup: Setup, scope: CredentialScope, canonicalRequest: [UInt8], signedHeaders: Range<Int>, signature: SignatureValue,
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let credentialPrefix = setup.credentialPrefix
        let capacity = credentialPrefix.count + 8 + scope.suffix.count + 16 + signedHeaders.count + 12 + signature.hexCount
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = ByteWriter(buffer)
            out.write(credentialPrefix)
            scope.write(to: &out)
            out.write(", SignedHeaders=" as StaticString)
            canonicalRequest.withUnsafeBufferPointer { out.write(UnsafeBufferPointer(rebasing: $0[signedHeaders])) }
            out.write(", Signature=" as StaticString)
            signature.appendHex(to: &out)
            return body(out.written)
        }
    }

    /// Runs `body` with the `X-Amz-*` parameters of a presigned URL, encoded for the query, in
    /// temporary storage: the signed ones, the signature, and the session token last where the
    /// service leaves it unsigned.
    private func withPresignedParameters<Result>(_ stages: SigningStages, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let signed = stages.presignParameters ?? []
        let token = options.omitsSessionToken ? setup.sessionToken : nil
        let capacity = signed.count + 17 + stages.signature.hexCount + 22 + 3 * (token?.utf8.count ?? 0)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = ByteWriter(buffer)
            out.write(signed)
            out.write("&X-Amz-Signature=" as StaticString)
            stages.signature.appendHex(to: &out)
            if let token {
                out.write("&X-Amz-Security-Token=" as StaticString)
                token.withUTF8InPlace { URIEncoding.write(encoding: $0, keepSlash: false, to: &out) }
            }
            return body(out.written)
        }
    }
}

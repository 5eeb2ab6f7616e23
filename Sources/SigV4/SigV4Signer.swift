import MultiAuthCrypto

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`): header signing and presigned URLs.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
/// let request = try SignableRequest(method: "GET", url: "https://abc.execute-api.us-east-1.amazonaws.com/prod/items")
/// let signed = try signer.signHeaders(request, date: SigningDate(Date()))
/// // signed.signedRequest.headers now carries X-Amz-Date and Authorization.
/// ```
public struct SigV4Signer: Sendable {
    /// The algorithm name that starts the string to sign and the `Authorization` value.
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The longest presigned-URL lifetime AWS accepts, in seconds (7 days).
    public static let maximumExpiry = 604_800

    /// The key pair (and session token) that signs.
    public var credentials: AWSCredentials
    /// The region in the credential scope.
    public var region: String
    /// The service signing name in the credential scope (`execute-api`, `appsync`, `s3`, …).
    public var service: String
    /// Path, payload and token rules; defaults follow the service.
    public var options: SigningOptions
    /// Where derived keys are cached; `nil` derives the key on every signature.
    public var keyCache: SigningKeyCache?

    /// Creates a signer. `options` defaults to ``SigningOptions/defaults(forService:)``.
    public init(
        credentials: AWSCredentials, region: String, service: String,
        options: SigningOptions? = nil, keyCache: SigningKeyCache? = .shared
    ) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.options = options ?? .defaults(forService: service)
        self.keyCache = keyCache
    }

    /// Signs with an `Authorization` header, adding `X-Amz-Date` (and the session token
    /// and `x-amz-content-sha256` when they apply).
    public func signHeaders(_ request: SignableRequest, date: SigningDate) throws(SigningError) -> SigningResult {
        let credentials = try credentials.validated()
        let payloadHash = try payloadHashForHeaderSigning(request)
        var headers = try headersWithHost(request)
        headers.removeAll(named: "authorization")
        headers.removeAll(named: "x-amz-date")
        let token = credentials.sessionToken
        if token != nil { headers.removeAll(named: "x-amz-security-token") }
        if let token, !options.omitsSessionToken { headers.append(name: "X-Amz-Security-Token", value: token) }
        headers.append(name: "X-Amz-Date", value: date.amzDate)
        if options.signsContentSHA256Header, !headers.contains(named: "x-amz-content-sha256") {
            headers.append(name: "x-amz-content-sha256", value: payloadHash)
        }
        var query = CanonicalQuery()
        query.add(wireQuery: request.query)
        let stages = computeStages(request, headers: headers, query: &query, payloadHash: payloadHash, date: date)
        let authorization = "\(Self.algorithm) Credential=\(credentials.accessKeyId)/\(stages.scope), "
            + "SignedHeaders=\(stages.signedHeaders), Signature=\(stages.signature)"
        if let token, options.omitsSessionToken { headers.append(name: "X-Amz-Security-Token", value: token) }
        headers.append(name: "Authorization", value: authorization)
        var signed = request
        signed.headers = headers
        return stages.result(authorization: authorization, signedURL: nil, signedRequest: signed)
    }

    /// Signs in the query string (a presigned URL valid for `expires` seconds, 1…604800).
    public func presign(_ request: SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> SigningResult {
        guard (1...Self.maximumExpiry).contains(expires) else { throw .expiresOutOfRange(expires) }
        let credentials = try credentials.validated()
        let payloadHash = options.presignsUnsignedPayload ? PayloadHash.unsigned : try PayloadHash.value(for: request.payload)
        var headers = try headersWithHost(request)
        headers.removeAll(named: "authorization")
        var headerBlock = [UInt8]()
        let signedHeaders = CanonicalHeaders.append(headers, to: &headerBlock)
        let scope = credentialScope(date)
        var authParameters: [(String, String)] = [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope)"),
            ("X-Amz-Date", date.amzDate),
            ("X-Amz-Expires", String(expires)),
        ]
        let token = credentials.sessionToken
        if let token, !options.omitsSessionToken { authParameters.append(("X-Amz-Security-Token", token)) }
        authParameters.append(("X-Amz-SignedHeaders", signedHeaders))
        var query = CanonicalQuery()
        query.add(wireQuery: request.query)
        for (key, value) in authParameters { query.add(key: key, plainValue: value) }
        let stages = computeStages(
            request, headerBlock: headerBlock, signedHeaders: signedHeaders, query: &query,
            payloadHash: payloadHash, date: date)
        authParameters.append(("X-Amz-Signature", stages.signature))
        if let token, options.omitsSessionToken { authParameters.append(("X-Amz-Security-Token", token)) }
        var signed = request
        signed.headers = headers
        signed.query = Self.appending(authParameters, to: request.query)
        return stages.result(authorization: nil, signedURL: signed.url, signedRequest: signed)
    }

    private func payloadHashForHeaderSigning(_ request: SignableRequest) throws(SigningError) -> String {
        if let supplied = try PayloadHash.callerSuppliedContentSHA256(in: request.headers) { return supplied }
        return try PayloadHash.value(for: request.payload)
    }

    private func headersWithHost(_ request: SignableRequest) throws(SigningError) -> HTTPHeaderList {
        var headers = request.headers
        if !headers.contains(named: "host") {
            guard let authority = request.authority, !authority.isEmpty else { throw .missingHost }
            headers.insert(name: "Host", value: authority, at: 0)
        }
        return headers
    }

    private func credentialScope(_ date: SigningDate) -> String {
        "\(date.scopeDate)/\(region)/\(service)/aws4_request"
    }

    private func computeStages(
        _ request: SignableRequest, headers: HTTPHeaderList, query: inout CanonicalQuery,
        payloadHash: String, date: SigningDate
    ) -> Stages {
        var headerBlock = [UInt8]()
        headerBlock.reserveCapacity(64 * headers.count)
        let signedHeaders = CanonicalHeaders.append(headers, to: &headerBlock)
        return computeStages(
            request, headerBlock: headerBlock, signedHeaders: signedHeaders, query: &query,
            payloadHash: payloadHash, date: date)
    }

    private func computeStages(
        _ request: SignableRequest, headerBlock: [UInt8], signedHeaders: String,
        query: inout CanonicalQuery, payloadHash: String, date: SigningDate
    ) -> Stages {
        let canonical = CanonicalRequest(
            method: request.method, path: request.path, options: options, query: &query,
            headerBlock: headerBlock, signedHeaders: signedHeaders, payloadHash: payloadHash)
        let scope = credentialScope(date)
        let stringToSign = StringToSign(algorithm: Self.algorithm, date: date, scope: scope, canonicalRequest: canonical)
        let key = signingKey(date)
        let signature = stringToSign.bytes.withUnsafeBytes { key.authenticationCode(for: $0) }.hex
        return Stages(
            canonical: canonical.bytes, stringToSign: stringToSign.bytes, signature: signature,
            signedHeaders: signedHeaders, scope: scope)
    }

    private func signingKey(_ date: SigningDate) -> HMACSHA256Key {
        let secret = credentials.secretAccessKey
        if let keyCache {
            return keyCache.key(secret: secret, scopeDate: date.scopeDate, region: region, service: service)
        }
        return SigningKeyDerivation.derive(secret: secret, scopeDate: date.scopeDate, region: region, service: service)
    }

    /// Appends auth parameters to the caller's wire query, which is kept byte for byte.
    private static func appending(_ parameters: [(String, String)], to query: String) -> String {
        var out = [UInt8]()
        out.appendUTF8(query)
        for (key, value) in parameters {
            if !out.isEmpty { out.append(UInt8(ascii: "&")) }
            URIEncoding.append(encoding: key.utf8, keepSlash: false, to: &out)
            out.append(UInt8(ascii: "="))
            URIEncoding.append(encoding: value.utf8, keepSlash: false, to: &out)
        }
        return String(utf8Bytes: out)
    }

    private struct Stages {
        let canonical: [UInt8]
        let stringToSign: [UInt8]
        let signature: String
        let signedHeaders: String
        let scope: String

        func result(authorization: String?, signedURL: String?, signedRequest: SignableRequest) -> SigningResult {
            SigningResult(
                canonicalRequestBytes: canonical, stringToSignBytes: stringToSign, signature: signature,
                signedHeaders: signedHeaders, credentialScope: scope, authorization: authorization,
                signedURL: signedURL, signedRequest: signedRequest)
        }
    }
}

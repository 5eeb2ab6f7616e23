import HTTPTypes
import MultiAuthCrypto

/// A request's parts as the signing stages read them, borrowed for one signature: the wire
/// path and query as bytes, and the header fields where they already are.
struct RequestView<Headers: HeaderFieldSource> {
    let method: String
    let path: UnsafeBufferPointer<UInt8>
    let query: UnsafeBufferPointer<UInt8>
    let authority: String?
    let headers: Headers
}

extension HTTPRequest {
    /// Runs `body` with the request's parts; the path pseudo-header splits at its first `?`.
    func withSigningView<Result>(_ body: (RequestView<HTTPFields>) throws(SigningError) -> Result) throws(SigningError) -> Result {
        try (path ?? "/").withUTF8Bytes { (target) throws(SigningError) -> Result in
            let mark = target.firstIndex(of: UInt8(ascii: "?"))
            let path = UnsafeBufferPointer(rebasing: target[..<(mark ?? target.count)])
            let query = mark.map { UnsafeBufferPointer(rebasing: target[($0 + 1)...]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            return try body(RequestView(method: method.rawValue, path: path, query: query, authority: authority, headers: headerFields))
        }
    }
}

extension SignableRequest {
    /// Runs `body` with the request's parts.
    func withSigningView<Result>(_ body: (RequestView<HTTPHeaderList>) throws(SigningError) -> Result) throws(SigningError) -> Result {
        try path.withUTF8Bytes { (path) throws(SigningError) -> Result in
            try query.withUTF8Bytes { (query) throws(SigningError) -> Result in
                try body(RequestView(method: method, path: path, query: query, authority: authority, headers: headers))
            }
        }
    }
}

/// Where the signature goes.
enum SignatureLocation {
    /// The `Authorization` header.
    case headers
    /// The query string, valid for `expires` seconds.
    case query(expires: Int)
}

/// Stages 1–3 of one signature.
struct SigningStages {
    let canonical: CanonicalRequest
    let signature: SignatureValue
    let scope: CredentialScope
    /// The `X-Amz-*` parameters a presigned URL signed, encoded, before its signature; `nil`
    /// for headers.
    let presignParameters: [UInt8]?
}

extension SigV4Signer {
    /// Runs the three stages: canonical request, string to sign, signature (skipped unless
    /// `signing`, as the SigV4a verifier checks the string to sign instead).
    func stages<Headers>(
        _ request: RequestView<Headers>, fields: SignerFields, location: SignatureLocation, payloadHash: String,
        date: SigningDate, signing: Bool = true
    ) throws(SigningError) -> SigningStages {
        if case .query(let expires) = location, !(1...Self.maximumExpiry).contains(expires) { throw .expiresOutOfRange(expires) }
        let scope = setup.scope(date)
        let fieldCount = request.headers.fieldCount + fields.signedCount + 1
        let values = SignerFields.Values(signer: self, date: date, payloadHash: payloadHash)
        let byteCount = request.headers.byteCount + fields.signedByteCount(values) + 4 + (request.authority?.utf8.count ?? 0)
        return try CanonicalHeaders.withStorage(fields: fieldCount, bytes: byteCount, replacing: fields.replaced) {
            (headers) throws(SigningError) -> SigningStages in
            headers.add(request.headers)
            if !headers.hasHost {
                guard let authority = request.authority, !authority.isEmpty else { throw .missingHost }
                headers.add(signerField: "host", value: authority)
            }
            fields.add(to: &headers, values)
            headers.sort()
            var parameters: [UInt8]?
            if case .query(let expires) = location {
                parameters = presignParameters(scope: scope, expires: expires, headers: headers)
            }
            let canonical = (parameters ?? []).withUnsafeBufferPointer { extra in
                CanonicalRequest(
                    method: request.method, path: request.path, query: request.query, extraQuery: extra,
                    headers: headers, payloadHash: payloadHash, options: options)
            }
            let signature = signing ? try sign(canonical, scope: scope) : .ecdsa([])
            return SigningStages(canonical: canonical, signature: signature, scope: scope, presignParameters: parameters)
        }
    }

    /// The `X-Amz-*` query parameters presigning signs, encoded, in their sorted order.
    private func presignParameters(scope: CredentialScope, expires: Int, headers: CanonicalHeaders) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256 + headers.signedHeadersCapacity * 3 + (credentials.sessionToken?.utf8.count ?? 0) * 3)
        func parameter(_ name: StaticString, _ write: (inout [UInt8]) -> Void) {
            if !out.isEmpty { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(UInt8(ascii: "="))
            write(&out)
        }
        parameter("X-Amz-Algorithm") { URIEncoding.append(encoding: signingAlgorithm.name, to: &$0) }
        parameter("X-Amz-Credential") { out in
            URIEncoding.append(encoding: credentials.accessKeyId, to: &out)
            out.append(contentsOf: "%2F".utf8)
            URIEncoding.append(encoding: scope.string, to: &out)
        }
        parameter("X-Amz-Date") { $0.appendUTF8(scope.date.amzDate) }
        parameter("X-Amz-Expires") { $0.appendUTF8(String(expires)) }
        if let regionSet { parameter("X-Amz-Region-Set") { URIEncoding.append(encoding: regionSet, to: &$0) } }
        if let token = credentials.sessionToken, !options.omitsSessionToken {
            parameter("X-Amz-Security-Token") { URIEncoding.append(encoding: token, to: &$0) }
        }
        parameter("X-Amz-SignedHeaders") { out in
            let signedHeaders = ByteWriter.string(capacity: headers.signedHeadersCapacity) { headers.writeSignedHeaders(to: &$0) }
            URIEncoding.append(encoding: signedHeaders, to: &out)
        }
        return out
    }

    /// Stages 2 and 3: the string to sign, and the signature over it.
    private func sign(_ canonical: CanonicalRequest, scope: CredentialScope) throws(SigningError) -> SignatureValue {
        switch signingAlgorithm {
        case .sigV4:
            let key = signingKey(scope.date)
            return StringToSign.withBytes(algorithmLine: setup.algorithmLine, scope: scope, canonicalRequest: canonical.bytes) {
                .hmac(key.authenticationCode(for: UnsafeRawBufferPointer($0)))
            }
        case .sigV4a:
            let key = try setup.sigV4aKey()
            let digest = StringToSign.withBytes(algorithmLine: setup.algorithmLine, scope: scope, canonicalRequest: canonical.bytes) {
                SHA256Hasher.hash(UnsafeRawBufferPointer($0))
            }
            do { return .ecdsa(try key.signature(for: digest)) } catch { throw .keyDerivationFailed }
        }
    }

    func signingKeyForStreaming(_ date: SigningDate) -> HMACSHA256Key { signingKey(date) }

    private func signingKey(_ date: SigningDate) -> HMACSHA256Key {
        let setup = setup
        guard let keyCache = setup.keyCache else {
            return SigningKeyDerivation.derive(
                secret: setup.credentials.secretAccessKey, scopeDate: date.scopeDate, region: region, service: service)
        }
        let day = date.secondsSince1970 >= 0 ? date.secondsSince1970 / 86_400 : (date.secondsSince1970 - 86_399) / 86_400
        if let recent = setup.recentKey.withLock({ $0 }), recent.day == day { return recent.key }
        let key = keyCache.key(secret: setup.credentials.secretAccessKey, scopeDate: date.scopeDate, region: region, service: service)
        setup.recentKey.withLock { $0 = (day, key) }
        return key
    }
}

/// A presigned request's target: the caller's query kept byte for byte, the encoded
/// `X-Amz-*` parameters appended.
enum PresignedQuery {
    /// `target` (path and optional query) with `parameters` appended after `?` or `&`.
    static func target(_ target: String, appending parameters: [UInt8]) -> String {
        let separator = target.utf8.contains(UInt8(ascii: "?")) ? (target.hasSuffix("?") ? "" : "&") : "?"
        return target + separator + String(decoding: parameters, as: UTF8.self)
    }

    /// A wire query (without `?`) with `parameters` appended.
    static func query(_ query: String, appending parameters: [UInt8]) -> String {
        (query.isEmpty ? "" : query + "&") + String(decoding: parameters, as: UTF8.self)
    }
}

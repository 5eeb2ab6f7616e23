import HTTPTypes
import MultiAuthCrypto
import Synchronization

/// A request's parts as the signing stages read them, borrowed for one signature: the wire
/// path and query as bytes, and the header fields where they already are.
struct RequestView<Headers: HeaderFieldSource> {
    let method: String
    let path: UnsafeBufferPointer<UInt8>
    let query: UnsafeBufferPointer<UInt8>
    let authority: String?
    let headers: Headers
}

/// A request form whose parts the stages can read in place: swift-http-types' `HTTPRequest`
/// or the signer's own ``SignableRequest``.
protocol SigningViewSource: SendableMetatype {
    associatedtype Headers: HeaderFieldSource
    /// Runs `body` with the request's parts, borrowed for the call.
    func withSigningView<Result, Failure: Error>(_ body: (RequestView<Headers>) throws(Failure) -> Result) throws(Failure) -> Result
}

extension HTTPRequest: SigningViewSource {
    /// Runs `body` with the request's parts; the path pseudo-header splits at its first `?`.
    @inline(__always)
    func withSigningView<Result, Failure: Error>(_ body: (RequestView<HTTPFields>) throws(Failure) -> Result) throws(Failure) -> Result {
        try (path ?? "/").withUTF8Bytes { (target) throws(Failure) -> Result in
            let mark = target.firstIndex(of: UInt8(ascii: "?"))
            let path = UnsafeBufferPointer(rebasing: target[..<(mark ?? target.count)])
            let query = mark.map { UnsafeBufferPointer(rebasing: target[($0 + 1)...]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            return try body(RequestView(method: method.rawValue, path: path, query: query, authority: authority, headers: headerFields))
        }
    }
}

extension SignableRequest: SigningViewSource {
    /// Runs `body` with the request's parts.
    @inline(__always)
    func withSigningView<Result, Failure: Error>(_ body: (RequestView<HTTPHeaderList>) throws(Failure) -> Result) throws(Failure) -> Result {
        try path.withUTF8Bytes { (path) throws(Failure) -> Result in
            try query.withUTF8Bytes { (query) throws(Failure) -> Result in
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
        let values = SignerFields.Values(signer: self, date: date, payloadHash: payloadHash)
        let signerBytes = fields.signedByteCount(values) + 4 + (request.authority?.utf8.count ?? 0)
        // A request's fields usually fit a small stack buffer: counting their bytes first would
        // walk them (copying each swift-http-types field) once more. Only when they do not fit
        // are they counted, and the stages run again with room for all of them.
        if let stages = try stages(request, fields, location, values, signing, signerBytes: signerBytes, fieldBytes: Self.usualFieldBytes) {
            return stages
        }
        guard let stages = try stages(request, fields, location, values, signing, signerBytes: signerBytes, fieldBytes: request.headers.byteCount) else {
            preconditionFailure("HeaderFieldSource.byteCount must bound the fields' bytes")
        }
        return stages
    }

    /// Room for the request's own fields tried first: most requests' fields fit, and the
    /// stack buffer stays small.
    private static var usualFieldBytes: Int { 640 }

    /// The stages with room for `fieldBytes` of the request's fields and `signerBytes` of the
    /// signer's; nil when the request's fields do not fit.
    private func stages<Headers>(
        _ request: RequestView<Headers>, _ fields: SignerFields, _ location: SignatureLocation, _ values: SignerFields.Values,
        _ signing: Bool, signerBytes: Int, fieldBytes: Int
    ) throws(SigningError) -> SigningStages? {
        let scope = setup.scope(values.date)
        let payloadHash = values.payloadHash
        let fieldCount = request.headers.fieldCount + fields.signedCount + 1
        return try CanonicalHeaders.withStorage(fields: fieldCount, bytes: signerBytes + fieldBytes, replacing: fields.replaced) {
            (headers) throws(SigningError) -> SigningStages? in
            guard headers.add(request.headers, leaving: signerBytes) else { return nil }
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

    /// The `X-Amz-*` query parameters presigning signs, encoded, in their sorted order:
    /// written once into a buffer sized up front (every encoded byte takes at most three).
    private func presignParameters(scope: CredentialScope, expires: Int, headers: CanonicalHeaders) -> [UInt8] {
        let algorithm = signingAlgorithm.name
        let token = options.omitsSessionToken ? nil : setup.sessionToken
        let encodedBytes = algorithm.utf8.count + credentials.accessKeyId.utf8.count + scope.suffix.count
            + headers.signedHeadersCapacity + (regionSet?.utf8.count ?? 0) + (token?.utf8.count ?? 0)
        // The fixed part is at most 155 bytes: the seven `X-Amz-…=` names with their `&`s (122),
        // `%2F`, the scope date (8), the amz date (16) and six digits of expiry.
        return ByteWriter.bytes(capacity: 3 * encodedBytes + 160) { out in
            out.write("X-Amz-Algorithm=" as StaticString)
            Self.writeEncoded(algorithm, to: &out)
            out.write("&X-Amz-Credential=" as StaticString)
            Self.writeEncoded(credentials.accessKeyId, to: &out)
            out.write("%2F" as StaticString)
            scope.date.writeScopeDate(to: &out)
            URIEncoding.write(encoding: scope.suffix, keepSlash: false, to: &out)
            out.write("&X-Amz-Date=" as StaticString)
            out.write(scope.date.amzDate)
            out.write("&X-Amz-Expires=" as StaticString)
            out.writeDecimal(expires)
            if let regionSet {
                out.write("&X-Amz-Region-Set=" as StaticString)
                Self.writeEncoded(regionSet, to: &out)
            }
            if let token {
                out.write("&X-Amz-Security-Token=" as StaticString)
                Self.writeEncoded(token, to: &out)
            }
            out.write("&X-Amz-SignedHeaders=" as StaticString)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(headers.signedHeadersCapacity, 1)) { list in
                var names = ByteWriter(list)
                headers.writeSignedHeaders(to: &names)
                URIEncoding.write(encoding: names.written, keepSlash: false, to: &out)
            }
        }
    }

    /// Writes `text` percent-encoded for the query. (A static function rather than a nested
    /// one: a nested function capturing the writer costs an exclusivity check per call.)
    private static func writeEncoded(_ text: String, to out: inout ByteWriter) {
        text.withUTF8InPlace { URIEncoding.write(encoding: $0, keepSlash: false, to: &out) }
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
            return SigningKeyDerivation.derive(secretKey: setup.secretKey, scopeDate: date.scopeDate, region: region, service: service)
        }
        let day = date.secondsSince1970 >= 0 ? date.secondsSince1970 / 86_400 : (date.secondsSince1970 - 86_399) / 86_400
        if let recent = setup.recentKey.withLock({ $0 }), recent.day == day { return recent.key }
        let key = keyCache.key(secret: setup.credentials.secretAccessKey, scopeDate: date.scopeDate, region: region, service: service)
        setup.recentKey.withLock { $0 = (day, key) }
        return key
    }
}

/// A presigned request's target: the caller's query kept byte for byte, the encoded
/// `X-Amz-*` parameters appended, written into one new string.
enum PresignedQuery {
    /// `target` (path and optional query) with `parameters` appended after `?` or `&`.
    static func target(_ target: String, appending parameters: UnsafeBufferPointer<UInt8>) -> String {
        target.withUTF8InPlace { target in
            let hasQuery = target.contains(UInt8(ascii: "?"))
            let separator: UInt8? = hasQuery ? (target.last == UInt8(ascii: "?") ? nil : UInt8(ascii: "&")) : UInt8(ascii: "?")
            return joined(target, separator, parameters)
        }
    }

    /// A wire query (without `?`) with `parameters` appended.
    static func query(_ query: String, appending parameters: UnsafeBufferPointer<UInt8>) -> String {
        query.withUTF8InPlace { query in joined(query, query.isEmpty ? nil : UInt8(ascii: "&"), parameters) }
    }

    private static func joined(_ head: UnsafeBufferPointer<UInt8>, _ separator: UInt8?, _ tail: UnsafeBufferPointer<UInt8>) -> String {
        ByteWriter.string(capacity: head.count + 1 + tail.count) { out in
            out.write(head)
            if let separator { out.write(separator) }
            out.write(tail)
        }
    }
}

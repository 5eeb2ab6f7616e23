/// The authorization a request carries, in header or query form. The parameters are kept as
/// byte ranges into one buffer, so reading them makes no string per parameter: the verifier
/// compares scope, signed-header list and signature on these bytes. A class, as it is handed
/// through every stage of one verification: each hand-over is one reference, not a copy of
/// every field.
final class ReceivedAuthorization {
    /// The bytes the ranges below point into: the `Authorization` value as received, or a
    /// presigned query's decoded parameters.
    let storage: Storage
    /// The access key id: `Credential` up to its first `/`.
    let accessKeyId: Range<Int>
    /// The access key id as a string, for the caller's lookup and the signer cache; made once.
    let accessKeyIdText: String
    /// `date/region/service/aws4_request` as received: `Credential` after its first `/`.
    let scope: Range<Int>
    /// `SignedHeaders` as received.
    let signedHeaders: Range<Int>
    /// The hex signature as received (64 bytes for SigV4, a DER ECDSA signature for SigV4a).
    let signature: Range<Int>
    /// SigV4a (`AWS4-ECDSA-P256-SHA256`) rather than SigV4.
    let isSigV4a: Bool
    /// SigV4a's `X-Amz-Region-Set`, as received.
    let regionSet: String?
    let date: SigningDate
    /// What only the presigned form carries; nil for the header form.
    let presigned: Presigned?
    let sessionToken: String?
    /// The received `x-amz-content-sha256` when `SignedHeaders` lists it: the payload hash the
    /// signer used, whatever the body (a botocore quirk the signer shares).
    private(set) var contentSHA256: String?

    init(
        storage: Storage, accessKeyId: Range<Int>, scope: Range<Int>, signedHeaders: Range<Int>, signature: Range<Int>,
        isSigV4a: Bool, regionSet: String?, date: SigningDate, presigned: Presigned?, sessionToken: String?
    ) {
        self.storage = storage
        self.accessKeyId = accessKeyId
        accessKeyIdText = storage.withBytes { String(decoding: $0[accessKeyId], as: UTF8.self) }
        self.scope = scope
        self.signedHeaders = signedHeaders
        self.signature = signature
        self.isSigV4a = isSigV4a
        self.regionSet = regionSet
        self.date = date
        self.presigned = presigned
        self.sessionToken = sessionToken
    }

    /// Received bytes: a header value kept as the string it came in (no copy), or bytes
    /// decoded from a query (which need not be UTF-8).
    enum Storage {
        case string(String)
        case bytes([UInt8])

        func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            switch self {
            case .string(let text): text.withUTF8InPlace(body)
            case .bytes(let bytes): bytes.withUnsafeBufferPointer(body)
            }
        }
    }

    /// The parts of a presigned URL's authorization that the header form lacks.
    struct Presigned {
        /// `X-Amz-Expires`.
        let expires: Int
        /// The received query without the presigning parameters, other pairs byte for byte.
        let query: [UInt8]
    }

    /// The pieces of the received scope, cut at `/`; only for explaining a mismatch.
    var scopePieces: [String] {
        withBytes(of: scope) { scope in
            scope.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// True when `SignedHeaders` lists `name` (lowercase) exactly.
    func signsHeader(_ name: StaticString) -> Bool {
        withBytes(of: signedHeaders) { list in
            SignedHeaderList.contains(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), in: list, ignoringCase: false)
        }
    }

    /// True when the received `SignedHeaders` is exactly the recomputed canonical request's.
    func signedHeadersEqual(_ canonical: CanonicalRequest) -> Bool {
        canonical.bytes.withUnsafeBufferPointer { bytes in
            withBytes(of: signedHeaders) { ByteComparison.equal($0, UnsafeBufferPointer(rebasing: bytes[canonical.signedHeadersRange])) }
        }
    }

    /// Calls `body` with the received bytes of `range`.
    func withBytes<Result>(of range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        storage.withBytes { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }
}

extension ReceivedAuthorization {
    /// Reads the authorization from the headers, or from the query when there is no
    /// `Authorization` header.
    static func parse(_ request: RequestView<some HeaderFieldSource>) -> Result<ReceivedAuthorization, VerificationFailure> {
        var fields = AuthorizationFields()
        var repeated: String?
        request.headers.forEachFieldValue { name, value in
            if repeated == nil { repeated = fields.take(name, value) }
        }
        if let repeated { return .failure(.repeatedParameter(repeated)) }
        let parsed: Result<ReceivedAuthorization, VerificationFailure>
        if let authorization = fields.authorization {
            guard let date = fields.date else { return .failure(.malformedAuthorization("no X-Amz-Date")) }
            parsed = parseHeader(authorization, date: date, token: fields.token, regionSet: fields.regionSet.map(trimmed))
        } else {
            parsed = parsePresigned(request.query)
        }
        if case .success(let found) = parsed, let contentSHA256 = fields.contentSHA256, found.signsHeader("x-amz-content-sha256") {
            found.contentSHA256 = contentSHA256
        }
        return parsed
    }

    /// The header fields that carry a header-form authorization, found in one pass over the
    /// received fields, names matched on bytes, values kept as the strings they came in.
    private struct AuthorizationFields {
        var authorization: String?
        var date: String?
        var token: String?
        var regionSet: String?
        /// The first `x-amz-content-sha256`, which the signer reads as the payload hash.
        var contentSHA256: String?

        /// Keeps `value` when `name` is one of the four (or the first content hash); returns
        /// the field's name when it was already given.
        mutating func take(_ name: UnsafeBufferPointer<UInt8>, _ value: String) -> String? {
            switch name.count {
            case 13 where ByteComparison.equal(name, "authorization", ignoringCase: true):
                return ReceivedAuthorization.store(value, in: &authorization, name: "Authorization")
            case 10 where ByteComparison.equal(name, "x-amz-date", ignoringCase: true):
                return ReceivedAuthorization.store(value, in: &date, name: "X-Amz-Date")
            case 20 where ByteComparison.equal(name, "x-amz-security-token", ignoringCase: true):
                return ReceivedAuthorization.store(value, in: &token, name: "X-Amz-Security-Token")
            case 16 where ByteComparison.equal(name, "x-amz-region-set", ignoringCase: true):
                return ReceivedAuthorization.store(value, in: &regionSet, name: "X-Amz-Region-Set")
            case 20 where contentSHA256 == nil && ByteComparison.equal(name, "x-amz-content-sha256", ignoringCase: true):
                contentSHA256 = value
                return nil
            default:
                return nil
            }
        }
    }

    /// `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`, read on bytes.
    private static func parseHeader(
        _ value: String, date: String, token: String?, regionSet: String?
    ) -> Result<ReceivedAuthorization, VerificationFailure> {
        let found = value.withUTF8InPlace(headerParameters)
        switch found {
        case .failure(let failure): return .failure(failure)
        case .success(let ranges):
            return build(
                storage: .string(value), credential: ranges.credential, signedHeaders: ranges.signedHeaders, signature: ranges.signature,
                date: trimmed(date), presigned: nil, token: token.map(trimmed), isSigV4a: ranges.isSigV4a, regionSet: regionSet)
        }
    }

    private typealias HeaderParameters = (credential: Range<Int>?, signedHeaders: Range<Int>?, signature: Range<Int>?, isSigV4a: Bool)

    /// Where `Credential`, `SignedHeaders` and `Signature` are in an Authorization value;
    /// other parameters are ignored.
    private static func headerParameters(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HeaderParameters, VerificationFailure> {
        guard let space = ByteSearch.firstIndex(of: UInt8(ascii: " "), in: bytes, 0..<bytes.count) else { return .failure(.malformedAuthorization("no parameters")) }
        let algorithm = UnsafeBufferPointer(rebasing: bytes[..<space])
        let isSigV4a = ByteComparison.equal(algorithm, "AWS4-ECDSA-P256-SHA256")
        guard isSigV4a || ByteComparison.equal(algorithm, "AWS4-HMAC-SHA256") else {
            return .failure(.unsupportedAlgorithm(String(decoding: bytes[..<space], as: UTF8.self)))
        }
        var found: HeaderParameters = (nil, nil, nil, isSigV4a)
        var index = space + 1
        while index < bytes.count {
            let end = ByteSearch.firstIndex(of: UInt8(ascii: ","), in: bytes, index..<bytes.count) ?? bytes.count
            let parameter = trimmedRange(bytes, index..<end)
            index = end + 1
            guard !parameter.isEmpty else { continue }
            guard let equals = ByteSearch.firstIndex(of: UInt8(ascii: "="), in: bytes, parameter) else {
                return .failure(.malformedAuthorization("'\(String(decoding: bytes[parameter], as: UTF8.self))'"))
            }
            let name = UnsafeBufferPointer(rebasing: bytes[parameter.lowerBound..<equals])
            let value = (equals + 1)..<parameter.upperBound
            let repeated: String? =
                if ByteComparison.equal(name, "Credential") { store(value, in: &found.credential, name: "Credential") }
                else if ByteComparison.equal(name, "SignedHeaders") { store(value, in: &found.signedHeaders, name: "SignedHeaders") }
                else if ByteComparison.equal(name, "Signature") { store(value, in: &found.signature, name: "Signature") }
                else { nil }
            if let repeated { return .failure(.repeatedParameter(repeated)) }
        }
        return .success(found)
    }

    /// Fills an empty `slot`; returns `name` when the slot was already filled (a repeated parameter).
    private static func store<Value>(_ value: Value, in slot: inout Value?, name: String) -> String? {
        guard slot == nil else { return name }
        slot = value
        return nil
    }

    /// `range` of `bytes` without surrounding spaces or tabs.
    private static func trimmedRange(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var first = range.lowerBound, last = range.upperBound
        while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
        while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
        return first..<last
    }

    /// The value without surrounding spaces or tabs; the same string when it has none (the usual case).
    private static func trimmed(_ value: String) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = value.utf8.first, let last = value.utf8.last, isSpace(first) || isSpace(last) else { return value }
        return value.trimmingHTTPWhitespace()
    }

    /// Checks the parameters that every form needs and keeps them as ranges into `storage`.
    static func build(
        storage: Storage, credential: Range<Int>?, signedHeaders: Range<Int>?, signature: Range<Int>?, date: String,
        presigned: Presigned?, token: String?, isSigV4a: Bool, regionSet: String?
    ) -> Result<ReceivedAuthorization, VerificationFailure> {
        guard let credential, let slash = storage.withBytes({ $0[credential].firstIndex(of: UInt8(ascii: "/")) }) else {
            return .failure(.malformedAuthorization("Credential"))
        }
        guard let signedHeaders, !signedHeaders.isEmpty else { return .failure(.malformedAuthorization("SignedHeaders")) }
        // SigV4: 32 bytes of HMAC; SigV4a: a DER ECDSA signature (at most 72 bytes).
        guard let signature, isSigV4a ? (signature.count % 2 == 0 && (16...144).contains(signature.count)) : signature.count == 64 else {
            return .failure(.malformedAuthorization("Signature"))
        }
        if isSigV4a, regionSet?.isEmpty ?? true { return .failure(.malformedAuthorization("X-Amz-Region-Set")) }
        guard let parsedDate = try? SigningDate(parsing: date) else { return .failure(.malformedAuthorization("X-Amz-Date")) }
        return .success(ReceivedAuthorization(
            storage: storage, accessKeyId: credential.lowerBound..<slash, scope: (slash + 1)..<credential.upperBound,
            signedHeaders: signedHeaders, signature: signature, isSigV4a: isSigV4a, regionSet: isSigV4a ? regionSet : nil,
            date: parsedDate, presigned: presigned, sessionToken: token))
    }
}

/// The authorization a request carries, in header or query form. The parameters are kept as
/// byte ranges into one buffer, so reading them makes no string per parameter: the verifier
/// compares scope, signed-header list and signature on these bytes.
struct ReceivedAuthorization {
    /// The bytes the ranges below point into.
    let storage: [UInt8]
    /// The access key id: `Credential` up to its first `/`.
    let accessKeyId: Range<Int>
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

    /// The parts of a presigned URL's authorization that the header form lacks.
    struct Presigned {
        /// `X-Amz-Expires`.
        let expires: Int
        /// The received query without the presigning parameters, other pairs byte for byte.
        let query: String
    }

    /// The access key id as a string, for the caller's lookup.
    var accessKeyIdText: String { String(decoding: storage[accessKeyId], as: UTF8.self) }

    /// The pieces of the received scope, cut at `/`; only for explaining a mismatch.
    var scopePieces: [String] {
        storage[scope].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// True when `SignedHeaders` lists `name`; exactly, or ignoring ASCII case.
    func signsHeader(_ name: String, ignoringCase: Bool = false) -> Bool {
        name.withUTF8InPlace { wanted in
            withBytes(of: signedHeaders) { list in
                var start = 0
                for index in 0...list.count where index == list.count || list[index] == UInt8(ascii: ";") {
                    if ByteComparison.equal(UnsafeBufferPointer(rebasing: list[start..<index]), wanted, ignoringCase: ignoringCase) {
                        return true
                    }
                    start = index + 1
                }
                return false
            }
        }
    }

    /// True when the received `SignedHeaders` is exactly `list`.
    func signedHeadersEqual(_ list: String) -> Bool {
        list.withUTF8InPlace { wanted in withBytes(of: signedHeaders) { ByteComparison.equal($0, wanted) } }
    }

    /// Calls `body` with the received bytes of `range`.
    func withBytes<Result>(of range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }
}

extension ReceivedAuthorization {
    /// Reads the authorization from the headers, or from the query when there is no
    /// `Authorization` header.
    static func parse(_ request: SignableRequest) -> Result<ReceivedAuthorization, VerificationFailure> {
        // One pass over the headers, matching names without lowercasing copies.
        var authorization: String?, date: String?, token: String?, regionSet: String?
        for field in request.headers.fields {
            if HTTPHeaderList.namesMatch(field.name, "authorization") {
                guard authorization == nil else { return .failure(.repeatedParameter("Authorization")) }
                authorization = field.value
            } else if HTTPHeaderList.namesMatch(field.name, "x-amz-date") {
                guard date == nil else { return .failure(.repeatedParameter("X-Amz-Date")) }
                date = field.value
            } else if HTTPHeaderList.namesMatch(field.name, "x-amz-security-token") {
                guard token == nil else { return .failure(.repeatedParameter("X-Amz-Security-Token")) }
                token = field.value
            } else if HTTPHeaderList.namesMatch(field.name, "x-amz-region-set") {
                guard regionSet == nil else { return .failure(.repeatedParameter("X-Amz-Region-Set")) }
                regionSet = field.value
            }
        }
        guard let authorization else { return parsePresigned(request.query) }
        guard let date else { return .failure(.malformedAuthorization("no X-Amz-Date")) }
        return parseHeader(authorization, date: date, token: token, regionSet: regionSet.map(trimmed))
    }

    /// `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`, read on bytes.
    private static func parseHeader(
        _ value: String, date: String, token: String?, regionSet: String?
    ) -> Result<ReceivedAuthorization, VerificationFailure> {
        let bytes = Array(value.utf8)
        let found = bytes.withUnsafeBufferPointer(headerParameters)
        switch found {
        case .failure(let failure): return .failure(failure)
        case .success(let ranges):
            return build(
                storage: bytes, credential: ranges.credential, signedHeaders: ranges.signedHeaders, signature: ranges.signature,
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
    private static func store(_ value: Range<Int>, in slot: inout Range<Int>?, name: String) -> String? {
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
        storage: [UInt8], credential: Range<Int>?, signedHeaders: Range<Int>?, signature: Range<Int>?, date: String,
        presigned: Presigned?, token: String?, isSigV4a: Bool, regionSet: String?
    ) -> Result<ReceivedAuthorization, VerificationFailure> {
        guard let credential, let slash = storage[credential].firstIndex(of: UInt8(ascii: "/")) else {
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

// Reading a presigned URL's authorization from its query.
extension ReceivedAuthorization {
    /// The presigned form: the parameters are read, decoded, in one pass over the query bytes,
    /// which also collects the pairs that are not presigning parameters, byte for byte.
    static func parsePresigned(_ query: UnsafeBufferPointer<UInt8>) -> Result<ReceivedAuthorization, VerificationFailure> {
        switch splitQuery(query) {
        case .failure(let failure): return .failure(failure)
        case .success(let found): return presigned(found)
        }
    }

    private struct SplitQuery {
        /// The decoded values, one after another.
        var storage: [UInt8] = []
        /// Where each parameter's value is in `storage`: a tuple in place, where an array of
        /// eight would be one more allocation (and a run-time metadata lookup) per verification.
        var ranges: (Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?)
            = (nil, nil, nil, nil, nil, nil, nil, nil)
        /// The other pairs, joined by `&`; empty pairs dropped.
        var rest: [UInt8] = []

        subscript(_ parameter: PresignedQueryParameter) -> Range<Int>? {
            get {
                switch parameter {
                case .algorithm: ranges.0
                case .credential: ranges.1
                case .date: ranges.2
                case .expires: ranges.3
                case .securityToken: ranges.4
                case .signedHeaders: ranges.5
                case .signature: ranges.6
                case .regionSet: ranges.7
                }
            }
            set {
                switch parameter {
                case .algorithm: ranges.0 = newValue
                case .credential: ranges.1 = newValue
                case .date: ranges.2 = newValue
                case .expires: ranges.3 = newValue
                case .securityToken: ranges.4 = newValue
                case .signedHeaders: ranges.5 = newValue
                case .signature: ranges.6 = newValue
                case .regionSet: ranges.7 = newValue
                }
            }
        }

        func text(_ parameter: PresignedQueryParameter) -> String? {
            self[parameter].map { String(decoding: storage[$0], as: UTF8.self) }
        }
    }

    private static func splitQuery(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<SplitQuery, VerificationFailure> {
        var split = SplitQuery()
        split.storage.reserveCapacity(bytes.count)
        split.rest.reserveCapacity(bytes.count)
        var start = 0
        while start < bytes.count {
            let end = ByteSearch.firstIndex(of: UInt8(ascii: "&"), in: bytes, start..<bytes.count) ?? bytes.count
            defer { start = end + 1 }
            guard start < end else { continue }
            // The key ends at the first `=`; a pair like "=x" has an empty key (found by the fuzzer).
            let equals = ByteSearch.firstIndex(of: UInt8(ascii: "="), in: bytes, start..<end) ?? end
            guard let parameter = PresignedQueryParameter.named(UnsafeBufferPointer(rebasing: bytes[start..<equals])) else {
                if !split.rest.isEmpty { split.rest.append(UInt8(ascii: "&")) }
                split.rest.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                continue
            }
            guard split[parameter] == nil else { return .failure(.repeatedParameter("\(parameter.name)")) }
            let valueStart = split.storage.count
            if equals < end { PercentDecoding.append(UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]), to: &split.storage) }
            split[parameter] = valueStart..<split.storage.count
        }
        return .success(split)
    }

    private static func presigned(_ query: SplitQuery) -> Result<ReceivedAuthorization, VerificationFailure> {
        guard let algorithm = query[.algorithm] else { return .failure(.missingAuthorization) }
        let isSigV4a = query.storage.withUnsafeBufferPointer { ByteComparison.equal(UnsafeBufferPointer(rebasing: $0[algorithm]), "AWS4-ECDSA-P256-SHA256") }
        guard isSigV4a || query.storage.withUnsafeBufferPointer({ ByteComparison.equal(UnsafeBufferPointer(rebasing: $0[algorithm]), "AWS4-HMAC-SHA256") })
        else { return .failure(.unsupportedAlgorithm(query.text(.algorithm) ?? "")) }
        guard let expiresText = query.text(.expires), let expires = Int(expiresText), (1...SigV4Signer.maximumExpiry).contains(expires)
        else { return .failure(.malformedAuthorization("X-Amz-Expires")) }
        return build(
            storage: .bytes(query.storage), credential: query[.credential], signedHeaders: query[.signedHeaders], signature: query[.signature],
            date: query.text(.date) ?? "", presigned: Presigned(expires: expires, query: query.rest),
            token: query.text(.securityToken), isSigV4a: isSigV4a, regionSet: query.text(.regionSet))
    }
}

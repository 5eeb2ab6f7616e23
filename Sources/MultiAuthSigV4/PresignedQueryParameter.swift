/// The query parameters that carry a presigned URL's authorization.
enum PresignedQueryParameter: Int {
    case algorithm, credential, date, expires, securityToken, signedHeaders, signature, regionSet

    /// The parameter's name as it appears once percent-decoded.
    var name: StaticString {
        switch self {
        case .algorithm: "X-Amz-Algorithm"
        case .credential: "X-Amz-Credential"
        case .date: "X-Amz-Date"
        case .expires: "X-Amz-Expires"
        case .securityToken: "X-Amz-Security-Token"
        case .signedHeaders: "X-Amz-SignedHeaders"
        case .signature: "X-Amz-Signature"
        case .regionSet: "X-Amz-Region-Set"
        }
    }

    /// The parameter that `encodedKey` names once percent-decoded, if any. Every name starts
    /// with `X`, so most other keys are turned away at their first byte; a key without `%`
    /// is compared as it is (its length first), and only an escaped one is decoded.
    static func named(_ encodedKey: UnsafeBufferPointer<UInt8>) -> Self? {
        guard let first = encodedKey.first, first == UInt8(ascii: "X") || first == UInt8(ascii: "%") else { return nil }
        let escaped = ByteSearch.firstIndex(of: UInt8(ascii: "%"), in: encodedKey, 0..<encodedKey.count) != nil
        var rawValue = 0
        while let parameter = Self(rawValue: rawValue) {
            let matches = escaped ? PercentDecoding.decodedEquals(encodedKey, parameter.name) : ByteComparison.equal(encodedKey, parameter.name)
            if matches { return parameter }
            rawValue += 1
        }
        return nil
    }
}

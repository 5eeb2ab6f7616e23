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

    /// The parameter that `encodedKey` names once percent-decoded, if any. Most other keys
    /// are turned away at their first byte: every name starts with `X`.
    static func named(_ encodedKey: UnsafeBufferPointer<UInt8>) -> Self? {
        var rawValue = 0
        while let parameter = Self(rawValue: rawValue) {
            if PercentDecoding.decodedEquals(encodedKey, parameter.name) { return parameter }
            rawValue += 1
        }
        return nil
    }
}

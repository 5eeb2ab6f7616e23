import MultiAuthCrypto

/// Everything one signing produced: each stage for inspection, and the signed request.
public struct SigningResult: Sendable {
    /// Stage 1, as bytes.
    public let canonicalRequestBytes: [UInt8]
    /// Stage 2, as bytes.
    public let stringToSignBytes: [UInt8]
    /// Stage 3: the HMAC (SigV4) or DER-encoded ECDSA signature (SigV4a).
    public let signatureValue: SignatureValue
    /// The `;`-separated signed header names.
    public let signedHeaders: String
    /// The `Authorization` header value (header signing only).
    public let authorization: String?
    /// The request with every header or query parameter signing added.
    public let signedRequest: SignableRequest
    let scope: CredentialScope
    let isPresigned: Bool

    /// Stage 1: the canonical request.
    public var canonicalRequest: String { String(utf8Bytes: canonicalRequestBytes) }
    /// Stage 2: the string to sign.
    public var stringToSign: String { String(utf8Bytes: stringToSignBytes) }
    /// Stage 3: the lowercase hex signature.
    public var signature: String { signatureValue.hex }
    /// `date/region/service/aws4_request`.
    public var credentialScope: String { scope.string }
    /// The presigned URL (query signing only).
    public var signedURL: String? { isPresigned ? signedRequest.url : nil }
}

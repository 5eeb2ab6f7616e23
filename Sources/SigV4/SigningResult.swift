import HTTPTypes
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
    /// The signed request in the signer's own form (for the vectors harness and the CLI).
    package let signable: SignableRequest
    /// The signed swift-http-types request, when the caller gave one (built once, from it).
    var signedHTTPRequest: HTTPRequest?
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
    public var signedURL: String? { isPresigned ? signable.url : nil }

    /// The request with every header or query parameter signing added. `Authorization` and
    /// `X-Amz-Security-Token` are marked never to be indexed by HTTP/2 and HTTP/3 encoders.
    /// - Throws: ``SigningError`` when a header of the request cannot be carried by
    ///   `HTTPFields` (a raw suite request with a line break in a value).
    public func signedRequest() throws(SigningError) -> HTTPRequest {
        if let signedHTTPRequest { return signedHTTPRequest }
        return try signable.httpRequest()
    }
}

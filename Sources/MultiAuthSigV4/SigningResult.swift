public import HTTPTypes
import MultiAuthCrypto

/// Everything one signing produced: each stage for inspection, and the signed request.
///
/// Signing keeps the canonical request and the signature; the string to sign, the signed
/// headers, the `Authorization` value and the signer's own request form are made from them
/// only when asked for.
public struct SigningResult: Sendable {
    /// Stage 1, as bytes.
    public let canonicalRequestBytes: [UInt8]
    /// Stage 3: the HMAC (SigV4) or DER-encoded ECDSA signature (SigV4a).
    package let signatureValue: SignatureValue
    let signedHeadersRange: Range<Int>
    /// The signer's fixed part: the algorithm line and the scope after its date.
    let setup: SigV4Signer.Setup
    let date: SigningDate
    let isPresigned: Bool
    /// The signed request: the signer's own form, or the caller's swift-http-types request.
    let signed: SignedForm

    enum SignedForm: Sendable {
        case signable(SignableRequest)
        case http(HTTPRequest, Payload)
    }

    /// The `Authorization` header value (header signing only), made from the stages when asked for.
    public var authorization: String? {
        if isPresigned { return nil }
        return SigV4Signer.withAuthorizationBytes(
            setup: setup, scope: scope, canonicalRequest: canonicalRequestBytes, signedHeaders: signedHeadersRange,
            signature: signatureValue) { String(decoding: $0, as: UTF8.self) }
    }
    /// Stage 2, as bytes.
    public var stringToSignBytes: [UInt8] {
        StringToSign.bytes(algorithmLine: setup.algorithmLine, scope: scope, canonicalRequest: canonicalRequestBytes)
    }
    /// The `;`-separated signed header names.
    public var signedHeaders: String { String(decoding: canonicalRequestBytes[signedHeadersRange], as: UTF8.self) }
    /// Stage 1: the canonical request.
    public var canonicalRequest: String { String(utf8Bytes: canonicalRequestBytes) }
    /// Stage 2: the string to sign.
    public var stringToSign: String { String(utf8Bytes: stringToSignBytes) }
    /// Stage 3: the lowercase hex signature.
    public var signature: String { signatureValue.hex }
    /// `date/region/service/aws4_request`.
    public var credentialScope: String { scope.string }
    /// The credential scope, its bytes borrowed from `setup`, which this result holds.
    var scope: CredentialScope { setup.scope(date) }
    /// The presigned URL (query signing only).
    public var signedURL: String? { isPresigned ? signable.url : nil }

    /// The signed request in the signer's own form (for the vectors harness and the CLI).
    package var signable: SignableRequest {
        switch signed {
        case .signable(let request): return request
        case .http(let request, let payload):
            // A signed swift-http-types request always has an authority or a Host field.
            guard let request = try? SignableRequest(request, payload: payload) else { preconditionFailure("signed request without a host") }
            return request
        }
    }

    /// The request with every header or query parameter signing added. `Authorization` and
    /// `X-Amz-Security-Token` are marked never to be indexed by HTTP/2 and HTTP/3 encoders.
    /// - Throws: ``SigningError`` when a header of the request cannot be carried by
    ///   `HTTPFields` (a raw suite request with a line break in a value).
    public func signedRequest() throws(SigningError) -> HTTPRequest {
        switch signed {
        case .http(let request, _): return request
        case .signable(let request): return try request.httpRequest()
        }
    }
}

public import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto

/// IAM Roles Anywhere's request signing: `AWS4-X509-RSA-SHA256` and `AWS4-X509-ECDSA-SHA256`.
///
/// The canonical request and the string to sign are SigV4's; the signature is made with the
/// certificate's private key over the string to sign, in hex. `X-Amz-X509` carries the leaf
/// certificate (DER, base64) and `X-Amz-X509-Chain` the intermediates, both signed, and the
/// credential scope starts with the certificate's serial number in decimal.
///
/// ```swift
/// let identity = try X509SigningIdentity.pem(certificate: certificatePEM, privateKey: keyPEM)
/// let signer = X509Signer(identity: identity, region: "us-east-1")
/// let signed = try await signer.signHeaders(request, payload: .bytes(body), date: .now())
/// ```
public struct X509Signer: Sendable {
    /// The certificate and key that sign.
    public let identity: X509SigningIdentity
    /// The region in the credential scope.
    public var region: String { scopeSigner.region }
    /// The service in the credential scope: `rolesanywhere`.
    public var service: String { scopeSigner.service }
    /// A SigV4 signer named by the serial number: it makes the canonical request, never a signature.
    private let scopeSigner: SigV4Signer
    private let certificateFields: [(HTTPField.Name, String)]

    /// A signer for `region`'s `service` (Roles Anywhere's, unless told otherwise).
    public init(identity: X509SigningIdentity, region: String, service: String = "rolesanywhere") {
        self.identity = identity
        scopeSigner = SigV4Signer(
            credentials: AWSCredentials(accessKeyId: identity.serialNumber, secretAccessKey: "unused"), region: region, service: service,
            keyCache: nil)
        var fields = [(HTTPField.Name.amzX509, Base64.encode(identity.leaf.der))]
        if !identity.intermediates.isEmpty {
            fields.append((.amzX509Chain, identity.intermediates.map { Base64.encode($0.der) }.joined(separator: ",")))
        }
        certificateFields = fields
    }

    /// Signs `request` with an `Authorization` header, adding `X-Amz-Date` and the
    /// certificate fields (replacing any the request has). `payload` is the body.
    /// - Throws: ``SigningError``; ``SigningError/certificate(_:)`` when the certificate is not
    ///   valid at `date` or its key cannot sign.
    public func signHeaders(_ request: HTTPRequest, payload: Payload, date: SigningDate) async throws(SigningError) -> HTTPRequest {
        if let invalid = identity.validity(at: date.secondsSince1970) { throw .certificate(invalid) }
        var request = request
        for (name, value) in certificateFields { request.headerFields[name] = value }
        let unsigned = try scopeSigner.unsignedHeaderSigning(request, payload: payload, date: date)
        let algorithm = identity.key.algorithm.signingAlgorithm
        let digest = SHA256Hasher.hash(unsigned.canonicalRequest).hex
        let stringToSign = "\(algorithm)\n\(date.amzDate)\n\(unsigned.scope)\n\(digest)"
        let signature: [UInt8]
        do { signature = try await identity.key.signature(for: Array(stringToSign.utf8)) } catch { throw .certificate(error) }
        var signed = unsigned.request
        var authorization = HTTPField(
            name: .authorization,
            value: "\(algorithm) Credential=\(identity.serialNumber)/\(unsigned.scope), SignedHeaders=\(unsigned.signedHeaders), Signature=\(Hex.encode(signature))")
        authorization.indexingStrategy = .disallow
        signed.headerFields[.authorization] = nil
        signed.headerFields.append(authorization)
        return signed
    }
}

extension HTTPField.Name {
    /// The leaf certificate, DER in base64.
    static let amzX509 = HTTPField.Name("X-Amz-X509")!
    /// The intermediate certificates, each DER in base64, comma-separated.
    static let amzX509Chain = HTTPField.Name("X-Amz-X509-Chain")!
}

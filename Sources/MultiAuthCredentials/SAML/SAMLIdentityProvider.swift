import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthHTTP

/// A SAML identity provider as its metadata describes it (the document an IAM SAML provider
/// is created from): its entity ID, its SSO URL and the certificates it signs with. A
/// response checked against it must come from that entity and carry its signature.
public struct SAMLIdentityProvider: Sendable {
    static let metadataNS = "urn:oasis:names:tc:SAML:2.0:metadata"

    /// The provider's `entityID`, which its assertions name as their Issuer.
    public let entityID: String
    /// The `SingleSignOnService` for the HTTP-Redirect binding, when the metadata lists one.
    public let singleSignOnURL: String?
    let certificates: [X509Certificate]

    /// The provider `metadata` (an `EntityDescriptor` with an `IDPSSODescriptor`) describes.
    /// - Throws: `Credentials.invalidSetting` when it is not such a document or names no
    ///   signing certificate.
    public init(metadata: [UInt8]) throws(CredentialsError) {
        let root: SAMLElement
        do { root = try SAMLXML.parse(metadata) } catch { throw .invalidSetting(source: "the SAML metadata", problem: "it is not well-formed XML: \(error.problem)") }
        guard root.namespace == Self.metadataNS, root.name == "EntityDescriptor", let entityID = root.attributes["entityID"],
            let descriptor = root.child(Self.metadataNS, "IDPSSODescriptor")
        else { throw .invalidSetting(source: "the SAML metadata", problem: "it is not an identity provider's EntityDescriptor") }
        self.entityID = entityID
        singleSignOnURL = descriptor.children(Self.metadataNS, "SingleSignOnService")
            .first { $0.attributes["Binding"] == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" }?.attributes["Location"]
        let keys = descriptor.children(Self.metadataNS, "KeyDescriptor").filter { ($0.attributes["use"] ?? "signing") == "signing" }
        let encoded = keys.compactMap {
            $0.child(SAMLSignature.ds, "KeyInfo")?.child(SAMLSignature.ds, "X509Data")?.child(SAMLSignature.ds, "X509Certificate")?.text
        }
        certificates = encoded.compactMap { text in
            (try? Base64.decode(text.filter { !$0.isWhitespace })).flatMap { try? X509Certificate(der: $0) }
        }
        guard !certificates.isEmpty else { throw .invalidSetting(source: "the SAML metadata", problem: "it names no signing certificate") }
    }

    /// The metadata at `location`: a file, or an `https:` URL (`http:` only on a loopback host).
    public static func load(_ location: String, http: any HTTPSender) async throws(CredentialsError) -> SAMLIdentityProvider {
        guard location.hasPrefix("https://") || location.hasPrefix("http://") else {
            switch BoundedFileRead.contents(atPath: location, limit: 1 << 20) {
            case .success(let bytes): return try SAMLIdentityProvider(metadata: bytes)
            case .failure(let failure): throw .invalidSetting(source: "the SAML metadata \(location)", problem: "\(failure)")
            }
        }
        guard location.hasPrefix("https://") || LoopbackAddress.isPlainHTTPOnLoopback(location) else {
            throw .refusedEndpoint(source: "the SAML metadata", url: location, rule: "plain http is taken only from a loopback host")
        }
        let response: ReceivedResponse
        do {
            response = try await http.send(try HTTPRequest(method: .get, wireURL: location, headerFields: HTTPFields()))
        } catch { throw .transport(service: "the SAML metadata (\(Redaction.url(location)))", problem: "\(error)") }
        guard response.status == 200 else { throw .transport(service: "the SAML metadata (\(Redaction.url(location)))", problem: "HTTP \(response.status)") }
        return try SAMLIdentityProvider(metadata: response.body)
    }
}

import MultiAuthCore
import MultiAuthCrypto

/// Checks the enveloped XML signature (XML-DSig) of a SAML assertion or response against the
/// identity provider's signing certificates, as STS does: one reference to the signed element
/// itself, exclusive canonicalization of what is signed (inclusive for a reference with only
/// the enveloped transform), SHA-256 digests and RSA or ECDSA (P-256) SHA-256
/// signatures. SHA-1 and other algorithms are refused, as is a key carried in the message
/// (only the metadata's certificates are trusted).
enum SAMLSignature {
    static let ds = "http://www.w3.org/2000/09/xmldsig#"
    static let exclusiveC14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
    static let enveloped = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    static let sha256 = "http://www.w3.org/2001/04/xmlenc#sha256"
    static let rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    static let ecdsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"

    /// Verifies the signature `element` carries, with one of `certificates`.
    /// - Throws: `Credentials.samlResponse` naming the part that fails.
    static func verify(_ element: SAMLElement, certificates: [X509Certificate]) throws(CredentialsError) {
        let signatures = element.children(ds, "Signature")
        guard signatures.count == 1, let signature = signatures.first, let signedInfo = signature.child(ds, "SignedInfo") else {
            throw .samlResponse("it is not signed once (\(signatures.count) signatures)")
        }
        let canonicalization = signedInfo.child(ds, "CanonicalizationMethod")
        guard canonicalization?.attributes["Algorithm"] == exclusiveC14N else { throw unsupported("canonicalization", canonicalization) }
        let method = signedInfo.child(ds, "SignatureMethod")?.attributes["Algorithm"] ?? "none"
        guard method == rsaSHA256 || method == ecdsaSHA256 else { throw .samlResponse("its signature method \(method) is refused (RSA or ECDSA with SHA-256 only)") }
        let references = signedInfo.children(ds, "Reference")
        guard references.count == 1, let reference = references.first, let id = element.attributes["ID"], reference.attributes["URI"] == "#" + id else {
            throw .samlResponse("its signature does not cover the signed element (one Reference to #ID is needed)")
        }
        let digest = try digestValue(of: element, reference: reference)
        guard ConstantTime.equals(digest, try decoded(reference.child(ds, "DigestValue"), what: "DigestValue")) else {
            throw .samlResponse("its content was changed after it was signed (the digest does not match)")
        }
        var value = try decoded(signature.child(ds, "SignatureValue"), what: "SignatureValue")
        if method == ecdsaSHA256 {
            guard value.count == 64, let der = JWSPublicKey.derSignature(r: Array(value[0..<32]), s: Array(value[32...])) else {
                throw .samlResponse("its ECDSA signature value is not 64 bytes")
            }
            value = der
        }
        let signed = CanonicalXML.bytes(of: signedInfo, inclusivePrefixes: prefixList(canonicalization))
        guard certificates.contains(where: { $0.verifies(signature: value, of: signed) }) else {
            throw .samlResponse("its signature is not the identity provider's (no certificate of its metadata verifies it)")
        }
    }

    /// The SHA-256 of the element without its signature, canonicalized as the transforms say.
    private static func digestValue(of element: SAMLElement, reference: SAMLElement) throws(CredentialsError) -> [UInt8] {
        let transforms = reference.child(ds, "Transforms")?.children(ds, "Transform") ?? []
        let algorithms = transforms.map { $0.attributes["Algorithm"] ?? "" }
        guard algorithms == [enveloped, exclusiveC14N] || algorithms == [enveloped] else {
            throw .samlResponse("its reference transforms \(algorithms.joined(separator: ", ")) are refused (enveloped-signature, exc-c14n)")
        }
        let digestMethod = reference.child(ds, "DigestMethod")
        guard digestMethod?.attributes["Algorithm"] == sha256 else { throw unsupported("digest", digestMethod) }
        var unsigned = element
        unsigned.content.removeAll { if case .element(let child) = $0 { child.namespace == ds && child.name == "Signature" } else { false } }
        // With only the enveloped transform, the reference's octets are inclusive C14N's
        // (XML-DSig §4.4.3.2: a node set is converted with Canonical XML 1.0).
        let canonical = algorithms == [enveloped]
            ? CanonicalXML.inclusiveBytes(of: unsigned) : CanonicalXML.bytes(of: unsigned, inclusivePrefixes: prefixList(transforms.last))
        return SHA256Hasher.hash(canonical).bytes
    }

    /// The `InclusiveNamespaces PrefixList` of a canonicalization or transform element.
    private static func prefixList(_ element: SAMLElement?) -> Set<String> {
        let list = element?.child(exclusiveC14N, "InclusiveNamespaces")?.attributes["PrefixList"] ?? ""
        return Set(list.split(separator: " ").map(String.init))
    }

    private static func decoded(_ element: SAMLElement?, what: String) throws(CredentialsError) -> [UInt8] {
        guard let text = element?.text.filter({ !$0.isWhitespace }), let bytes = try? Base64.decode(text), !bytes.isEmpty else {
            throw .samlResponse("its \(what) is not base64")
        }
        return bytes
    }

    private static func unsupported(_ what: String, _ element: SAMLElement?) -> CredentialsError {
        .samlResponse("its \(what) algorithm \(element?.attributes["Algorithm"] ?? "none") is refused")
    }
}

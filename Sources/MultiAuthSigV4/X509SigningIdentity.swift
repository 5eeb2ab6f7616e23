import MultiAuthCore
import MultiAuthCrypto

/// The certificate, its intermediates and the private key that sign IAM Roles Anywhere
/// requests (``X509Signer``).
///
/// Make one from PEM files' bytes (``pem(certificate:privateKey:intermediates:passphrase:)``),
/// a PKCS#12 bundle (``pkcs12(_:passphrase:intermediates:)``), or a certificate and a key kept
/// elsewhere, such as a PKCS#11 token (``init(certificate:intermediates:key:)``). The key
/// never leaves where it is kept: only its signatures do.
public struct X509SigningIdentity: Sendable {
    /// The leaf certificate's serial number in decimal: the credential scope's first part.
    public var serialNumber: String { leaf.serialNumber }
    let leaf: X509Certificate
    let intermediates: [X509Certificate]
    let key: any X509KeySigner

    /// An identity whose key is `key`, for the first certificate in `certificate` (PEM); any
    /// further certificates there, then those in `intermediates` (PEM), form the chain.
    /// - Throws: ``X509IdentityError`` when a certificate is malformed.
    public init(certificate: [UInt8], intermediates: [UInt8]? = nil, key: any X509KeySigner) throws(X509IdentityError) {
        let certificates = try Self.certificates(certificate, what: "the certificate")
        let chain = try intermediates.map { (pem) throws(X509IdentityError) in try Self.certificates(pem, what: "the intermediates") } ?? []
        self.init(leaf: certificates[0], intermediates: Array(certificates.dropFirst()) + chain, key: key)
    }

    /// An identity whose key is `key`, for the certificate in `certificateDER` (as a token
    /// stores it), with `intermediates` (PEM) as its chain.
    /// - Throws: ``X509IdentityError`` when a certificate is malformed.
    public init(certificateDER: [UInt8], intermediates: [UInt8]? = nil, key: any X509KeySigner) throws(X509IdentityError) {
        let leaf: X509Certificate
        do { leaf = try X509Certificate(der: certificateDER) } catch { throw .malformedCertificate("the certificate") }
        let chain = try intermediates.map { (pem) throws(X509IdentityError) in try Self.certificates(pem, what: "the intermediates") } ?? []
        self.init(leaf: leaf, intermediates: chain, key: key)
    }

    init(leaf: X509Certificate, intermediates: [X509Certificate], key: any X509KeySigner) {
        self.leaf = leaf
        self.intermediates = intermediates
        self.key = key
    }

    /// An identity from PEM text: the certificate (and optionally its chain after it), the
    /// private key (PKCS#1, SEC1, PKCS#8, or encrypted PKCS#8 opened with `passphrase`).
    /// - Throws: ``X509IdentityError`` when a part is malformed, the passphrase is missing or
    ///   wrong, or the key is not the certificate's.
    public static func pem(
        certificate: [UInt8], privateKey: [UInt8], intermediates: [UInt8]? = nil, passphrase: [UInt8]? = nil
    ) throws(X509IdentityError) -> X509SigningIdentity {
        let key: PrivateKey
        do { key = try PrivateKey.pem(privateKey, passphrase: passphrase) } catch { throw X509IdentityError(key: error, what: "the private key") }
        let identity = try X509SigningIdentity(certificate: certificate, intermediates: intermediates, key: LocalKey(key))
        guard identity.leaf.matches(key) else { throw .keyMismatch }
        return identity
    }

    /// An identity from a PKCS#12 bundle holding the key, the certificate and optionally its
    /// chain, with more intermediates from `intermediates` (PEM).
    /// - Throws: ``X509IdentityError`` as ``pem(certificate:privateKey:intermediates:passphrase:)``.
    public static func pkcs12(_ bundle: [UInt8], passphrase: [UInt8]? = nil, intermediates: [UInt8]? = nil) throws(X509IdentityError) -> X509SigningIdentity {
        let parts: (key: PrivateKey, certificate: X509Certificate, others: [X509Certificate])
        do { parts = try PrivateKey.pkcs12(bundle, passphrase: passphrase) } catch { throw X509IdentityError(key: error, what: "the PKCS#12 bundle") }
        let chain = try intermediates.map { (pem) throws(X509IdentityError) in try certificates(pem, what: "the intermediates") } ?? []
        guard parts.certificate.matches(parts.key) else { throw .keyMismatch }
        return X509SigningIdentity(leaf: parts.certificate, intermediates: parts.others + chain, key: LocalKey(parts.key))
    }

    /// Checks that the key is the certificate's by signing a random message with it: for a
    /// key kept elsewhere (a token), whose match cannot be seen otherwise.
    /// - Throws: ``X509IdentityError/keyMismatch`` when the signature does not verify under the
    ///   certificate's public key, or the key's own error when it cannot sign.
    public func checkKey() async throws(X509IdentityError) {
        if key is LocalKey { return }  // matched when it was read
        let probe: [UInt8]
        do { probe = try SecureRandom.bytes(count: 32) } catch { throw .signingFailed(reason: error.description) }
        let signature = try await key.signature(for: probe)
        guard leaf.verifies(signature: signature, of: probe) else { throw .keyMismatch }
    }

    /// Whether the leaf certificate is valid at `seconds` since 1970.
    func validity(at seconds: Int64) -> X509IdentityError? {
        if seconds < leaf.notBefore { return .notYetValid(serial: serialNumber, notBefore: leaf.notBefore) }
        if seconds > leaf.notAfter { return .expired(serial: serialNumber, notAfter: leaf.notAfter) }
        return nil
    }

    private static func certificates(_ pem: [UInt8], what: String) throws(X509IdentityError) -> [X509Certificate] {
        do { return try X509Certificate.pem(pem) } catch { throw .malformedCertificate(what) }
    }
}

/// How a certificate's private key signs: the key a ``X509SigningIdentity`` was read with,
/// or one kept in a token (PKCS#11), asked for each signature.
public protocol X509KeySigner: Sendable {
    /// RSA or ECDSA: names the signing algorithm.
    var algorithm: X509KeyAlgorithm { get }
    /// The signature of `message`'s SHA-256: RSA PKCS#1 v1.5, or ECDSA encoded in DER.
    func signature(for message: [UInt8]) async throws(X509IdentityError) -> [UInt8]
}

/// The key types Roles Anywhere signs with.
public enum X509KeyAlgorithm: Sendable {
    /// `AWS4-X509-RSA-SHA256`.
    case rsa
    /// `AWS4-X509-ECDSA-SHA256`.
    case ecdsa

    /// The signing algorithm's name.
    public var signingAlgorithm: String {
        switch self {
        case .rsa: "AWS4-X509-RSA-SHA256"
        case .ecdsa: "AWS4-X509-ECDSA-SHA256"
        }
    }
}

/// A key read into this process.
struct LocalKey: X509KeySigner {
    let key: PrivateKey
    init(_ key: PrivateKey) { self.key = key }

    var algorithm: X509KeyAlgorithm { key.algorithm == .rsa ? .rsa : .ecdsa }

    /// Signs off the cooperative pool: a key in a TPM signs inside it, taking milliseconds.
    func signature(for message: [UInt8]) async throws(X509IdentityError) -> [UInt8] {
        let key = key
        return try await runBlocking { () -> Result<[UInt8], X509IdentityError> in
            do throws(CryptoError) { return .success(try key.sign(message)) } catch { return .failure(.signingFailed(reason: error.description)) }
        }
    }
}

import CLibCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An RSA or EC private key on OpenSSL (`EVP_PKEY`), read from PEM (PKCS#1, SEC1, PKCS#8,
/// encrypted PKCS#8 or legacy encrypted PEM) or a PKCS#12 bundle, signing SHA-256 digests
/// as X.509 signatures do: RSA PKCS#1 v1.5, or DER-encoded ECDSA.
///
/// Immutable after creation; OpenSSL's signing only reads it. Freed with `EVP_PKEY_free`,
/// which clears the key material.
package final class PrivateKey: @unchecked Sendable {
    /// The key types X.509 signing here supports.
    package enum Algorithm: Sendable, Equatable {
        case rsa, ecdsa
    }

    let pointer: OpaquePointer
    /// RSA or ECDSA.
    package let algorithm: Algorithm
    /// True for a key the `tpm2` provider holds (the TPM signs).
    let inTPM: Bool

    private init(taking pointer: OpaquePointer, inTPM: Bool = false) throws(CryptoError) {
        self.inTPM = inTPM
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA: algorithm = .rsa
        case EVP_PKEY_EC: algorithm = .ecdsa
        default:
            EVP_PKEY_free(pointer)
            throw .malformedKey
        }
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The key in PEM text, decrypted with `passphrase` when it is encrypted.
    /// - Throws: ``CryptoError/passphraseRequired`` or ``CryptoError/wrongPassphrase`` for an
    ///   encrypted key, ``CryptoError/malformedKey`` otherwise.
    package static func pem(_ text: [UInt8], passphrase: [UInt8]?) throws(CryptoError) -> PrivateKey {
        let inTPM = String(decoding: text.prefix(64), as: UTF8.self).contains("BEGIN TSS2 PRIVATE KEY")
        if inTPM { try TPMProvider.load() }
        let encrypted = Self.isEncrypted(text)
        if encrypted, passphrase == nil { throw .passphraseRequired }
        guard let bio = text.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { throw .cipherFailure }
        defer { BIO_free(bio) }
        // A NUL-terminated passphrase as the callback's argument, never OpenSSL's own
        // callback: without one it would prompt on the terminal.
        var secret = (passphrase ?? []) + [0]
        defer { SecureMemory.zero(&secret) }
        let key = secret.withUnsafeMutableBytes { PEM_read_bio_PrivateKey(bio, nil, nil, $0.baseAddress) }
        ERR_clear_error()
        guard let key else {
            if inTPM { throw .tpmUnavailable("the tpm2 provider could not load it (is the TPM reachable? TPM2OPENSSL_TCTI names it)") }
            throw encrypted ? .wrongPassphrase : .malformedKey
        }
        return try PrivateKey(taking: key, inTPM: inTPM)
    }

    /// The key and certificates of a PKCS#12 bundle (`.p12`, `.pfx`), opened with `passphrase`
    /// (empty when the bundle has none).
    /// - Throws: ``CryptoError/wrongPassphrase`` when its integrity check fails with it,
    ///   ``CryptoError/malformedKey`` when it is not a bundle or holds no key or certificate.
    package static func pkcs12(_ bytes: [UInt8], passphrase: [UInt8]?) throws(CryptoError) -> (key: PrivateKey, certificate: X509Certificate, others: [X509Certificate]) {
        defer { ERR_clear_error() }
        let bundle: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let bundle else { throw .malformedKey }
        defer { PKCS12_free(bundle) }
        var secret = (passphrase ?? []) + [0]
        defer { SecureMemory.zero(&secret) }
        let parsed = secret.withUnsafeMutableBytes { raw in Self.parse(bundle, passphrase: raw.baseAddress?.assumingMemoryBound(to: CChar.self)) }
        let (key, certificate, others) = try parsed.get()
        let privateKey = try PrivateKey(taking: key)
        var extra: [X509Certificate] = []
        for other in others { extra.append(try X509Certificate.adopting(other)) }
        return (privateKey, try X509Certificate.adopting(certificate), extra)
    }

    private static func parse(
        _ bundle: OpaquePointer, passphrase: UnsafePointer<CChar>?
    ) -> Result<(OpaquePointer, OpaquePointer, [OpaquePointer]), CryptoError> {
        guard PKCS12_verify_mac(bundle, passphrase, -1) == 1 else { return .failure(.wrongPassphrase) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        guard PKCS12_parse(bundle, passphrase, &key, &certificate, &others) == 1 else { return .failure(.malformedKey) }
        let extra = certificates(taking: others)
        guard let key, let certificate else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            extra.forEach { X509_free($0) }
            return .failure(.malformedKey)
        }
        return .success((key, certificate, extra))
    }

    /// The signature of `message`'s SHA-256: RSA PKCS#1 v1.5, or ECDSA in DER.
    /// - Throws: ``CryptoError/cipherFailure`` if OpenSSL fails.
    package func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .cipherFailure }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        // Update and final rather than one-shot: a provider's key (a TPM's) may sign only that way.
        // A TPM's key must be signed with by its own provider: the default one has no private key to use.
        guard EVP_DigestSignInit_ex(context, nil, "SHA256", nil, inTPM ? "?provider=tpm2" : nil, pointer, nil) == 1, EVP_DigestSignUpdate(context, message, message.count) == 1 else {
            throw .cipherFailure
        }
        var length = 0
        guard EVP_DigestSignFinal(context, nil, &length) == 1 else { throw .cipherFailure }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSignFinal(context, &signature, &length) == 1 else { throw .cipherFailure }
        return Array(signature.prefix(length))
    }

    /// A new P-256 key (a DPoP proof key).
    /// - Throws: ``CryptoError/cipherFailure`` if OpenSSL fails.
    package static func generateP256() throws(CryptoError) -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .cipherFailure }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else { throw .cipherFailure }
        return try PrivateKey(taking: key)
    }

    /// The key in SEC1 PEM (`-----BEGIN EC PRIVATE KEY-----`), or PKCS#1 for RSA: the form
    /// the AWS CLI keeps a DPoP key in.
    package func traditionalPEM() throws(CryptoError) -> [UInt8] {
        guard let pem = MemoryBIO.written({ PEM_write_bio_PrivateKey_traditional($0, pointer, nil, nil, 0, nil, nil) == 1 }) else { throw .cipherFailure }
        return pem
    }

    /// An EC key's public point, 32-byte big-endian x and y (P-256); nil for other keys.
    package var publicCoordinates: (x: [UInt8], y: [UInt8])? {
        guard algorithm == .ecdsa else { return nil }
        var x: OpaquePointer?
        var y: OpaquePointer?
        defer {
            BN_free(x)
            BN_free(y)
            ERR_clear_error()
        }
        guard EVP_PKEY_get_bn_param(pointer, "qx", &x) == 1, EVP_PKEY_get_bn_param(pointer, "qy", &y) == 1 else { return nil }
        var xBytes = [UInt8](repeating: 0, count: 32)
        var yBytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(x, &xBytes, 32) == 32, BN_bn2binpad(y, &yBytes, 32) == 32 else { return nil }
        return (xBytes, yBytes)
    }

    /// A JWS ES256 signature of `message`: ECDSA over its SHA-256, as `r || s`, 32 bytes each.
    package func es256Signature(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try ECDSASignature.raw(der: try sign(message), size: 32)
    }

    /// OpenSSL's `tpm2` provider (Debian's tpm2-openssl), which reads `TSS2 PRIVATE KEY` PEM
    /// and signs inside the TPM, loaded once for the process beside the default provider
    /// (an explicit load turns off the default's automatic one).
    enum TPMProvider {
        private static let loaded: Result<Void, CryptoError> = {
            guard OSSL_PROVIDER_load(nil, "default") != nil else { return .failure(.tpmUnavailable("OpenSSL's default provider did not load")) }
            // The TSS libraries log to standard error unless told otherwise; the error below says it all.
            if getenv("TSS2_LOG") == nil { setenv("TSS2_LOG", "all+NONE", 0) }
            guard OSSL_PROVIDER_load(nil, "tpm2") != nil else {
                ERR_clear_error()
                return .failure(.tpmUnavailable("OpenSSL's tpm2 provider did not load: it is not installed (Debian: tpm2-openssl), or no TPM answered at TPM2OPENSSL_TCTI"))
            }
            return .success(())
        }()

        static func load() throws(CryptoError) { try loaded.get() }
    }

    /// PKCS#8's encrypted form, or legacy PEM's `Proc-Type: 4,ENCRYPTED`.
    private static func isEncrypted(_ text: [UInt8]) -> Bool {
        let string = String(decoding: text.prefix(64 * 1024), as: UTF8.self)
        return string.contains("BEGIN ENCRYPTED PRIVATE KEY") || string.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// The `X509`s of a stack PKCS#12 parsing handed over, the stack itself freed.
    private static func certificates(taking stack: OpaquePointer?) -> [OpaquePointer] {
        guard let stack else { return [] }
        defer { OPENSSL_sk_free(stack) }
        return (0..<OPENSSL_sk_num(stack)).compactMap { OPENSSL_sk_value(stack, $0).map(OpaquePointer.init) }
    }
}

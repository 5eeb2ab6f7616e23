import CLibCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An X.509 certificate on OpenSSL (`X509`): its DER bytes, serial number and validity, as
/// IAM Roles Anywhere's signing reads them.
///
/// Immutable after creation; OpenSSL only reads it, so one instance serves concurrent users.
package final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The certificate's DER encoding.
    package let der: [UInt8]
    /// The serial number in decimal, as Roles Anywhere's credential scope names it.
    package let serialNumber: String
    /// The validity period, in seconds since 1970.
    package let notBefore: Int64
    package let notAfter: Int64

    private init(taking pointer: OpaquePointer) throws(CryptoError) {
        self.pointer = pointer
        guard let der = Self.der(of: pointer), let serial = Self.decimalSerial(of: pointer),
            let notBefore = Self.seconds(X509_get0_notBefore(pointer)), let notAfter = Self.seconds(X509_get0_notAfter(pointer))
        else {
            X509_free(pointer)
            throw .malformedCertificate
        }
        self.der = der
        self.serialNumber = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    deinit { X509_free(pointer) }

    /// One certificate from its DER bytes.
    /// - Throws: ``CryptoError/malformedCertificate`` when they hold none.
    package convenience init(der: [UInt8]) throws(CryptoError) {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw .malformedCertificate }
        try self.init(taking: decoded)
    }

    /// Every certificate in PEM text, in order (a leaf, or a chain of intermediates).
    /// - Throws: ``CryptoError/malformedCertificate`` when there is none, or one is malformed.
    package static func pem(_ text: [UInt8]) throws(CryptoError) -> [X509Certificate] {
        guard let bio = text.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { throw .cipherFailure }
        defer { BIO_free(bio) }
        var certificates: [X509Certificate] = []
        while let next = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(try X509Certificate(taking: next)) }
        // The loop ends at the end of the text or at a block that is not a certificate.
        let endedCleanly = ERR_GET_REASON(ERR_peek_last_error()) == PEM_R_NO_START_LINE
        ERR_clear_error()
        guard !certificates.isEmpty, endedCleanly else { throw .malformedCertificate }
        return certificates
    }

    /// Takes an `X509` that PKCS#12 parsing handed over.
    static func adopting(_ pointer: OpaquePointer) throws(CryptoError) -> X509Certificate { try X509Certificate(taking: pointer) }

    /// True when `key` is the private key for this certificate's public key.
    package func matches(_ key: PrivateKey) -> Bool {
        defer { ERR_clear_error() }
        return X509_check_private_key(pointer, key.pointer) == 1
    }

    /// True when `signature` (RSA PKCS#1 v1.5, or DER ECDSA) of `message`'s SHA-256 verifies
    /// under this certificate's public key.
    package func verifies(signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let key = X509_get0_pubkey(pointer), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    private static func der(of pointer: OpaquePointer) -> [UInt8]? {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        return written == length ? bytes : nil
    }

    private static func decimalSerial(of pointer: OpaquePointer) -> String? {
        guard let serial = X509_get0_serialNumber(pointer), let number = ASN1_INTEGER_to_BN(serial, nil) else { return nil }
        defer { BN_free(number) }
        guard let text = BN_bn2dec(number) else { return nil }
        defer { CRYPTO_free(text, #file, #line) }
        return String(cString: text)
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }
}

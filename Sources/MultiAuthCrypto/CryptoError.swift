/// Failures of the crypto module. No case ever carries key material.
package enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fixed-size value was given the wrong number of bytes.
    case invalidLength(expected: Int, actual: Int)
    /// Text that should be hexadecimal is not.
    case invalidHex
    /// OpenSSL's random generator reported a failure.
    case randomUnavailable
    /// Authenticated decryption failed: the data, tag or associated data was altered, or the key is wrong.
    case authenticationFailed
    /// OpenSSL's cipher interface reported an error.
    case cipherFailure
    /// OpenSSL's key derivation rejected its parameters.
    case kdfFailure
    /// Text that should be base64 is not.
    case invalidBase64
    /// A public key's parameters are malformed or not on the expected curve.
    case invalidPublicKey
    /// Text that should be base32 (RFC 4648) is not.
    case invalidBase32
    /// Bytes that should hold an X.509 certificate (PEM or DER) do not.
    case malformedCertificate
    /// Bytes that should hold a private key (PEM, or a PKCS#12 bundle) do not, or hold a key
    /// of a type other than RSA and EC.
    case malformedKey
    /// The key is encrypted and no passphrase was given.
    case passphraseRequired
    /// The key or bundle is encrypted and the passphrase does not open it.
    case wrongPassphrase
    /// A key kept in a TPM could not be used: OpenSSL's `tpm2` provider is missing, or the TPM
    /// did not answer (the reason says which).
    case tpmUnavailable(String)

    package var description: String {
        switch self {
        case .invalidLength(let expected, let actual): "expected \(expected) bytes, got \(actual)"
        case .invalidHex: "not valid hexadecimal text"
        case .randomUnavailable: "OpenSSL's random number generator failed"
        case .authenticationFailed: "authentication failed: the data was altered or the key is wrong"
        case .cipherFailure: "OpenSSL's cipher failed"
        case .kdfFailure: "OpenSSL's key derivation failed"
        case .invalidBase64: "not valid base64 text"
        case .invalidPublicKey: "the public key is malformed"
        case .invalidBase32: "not valid base32 text"
        case .malformedCertificate: "not an X.509 certificate in PEM or DER"
        case .malformedKey: "not an RSA or EC private key in PEM (PKCS#1, SEC1, PKCS#8) or PKCS#12"
        case .passphraseRequired: "the private key is encrypted: a passphrase is needed"
        case .wrongPassphrase: "the passphrase does not decrypt the private key"
        case .tpmUnavailable(let reason): "the TPM key cannot be used: \(reason)"
        }
    }
}

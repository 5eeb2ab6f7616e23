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
        }
    }
}

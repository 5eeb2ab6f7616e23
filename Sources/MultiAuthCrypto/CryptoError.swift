/// Failures of the crypto module. No case ever carries key material.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fixed-size value was given the wrong number of bytes.
    case invalidLength(expected: Int, actual: Int)
    /// Text that should be hexadecimal is not.
    case invalidHex
    /// OpenSSL's random generator reported a failure.
    case randomUnavailable

    public var description: String {
        switch self {
        case .invalidLength(let expected, let actual): "expected \(expected) bytes, got \(actual)"
        case .invalidHex: "not valid hexadecimal text"
        case .randomUnavailable: "OpenSSL's random number generator failed"
        }
    }
}

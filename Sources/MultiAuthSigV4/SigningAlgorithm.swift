package import MultiAuthCrypto

/// The two signature algorithms of the SigV4 family. They share every canonicalization
/// stage and differ in the scope, one extra signed value, and the final signature.
public enum SigningAlgorithm: Sendable, Equatable {
    /// `AWS4-HMAC-SHA256`: HMAC with a key derived per date, region and service.
    case sigV4
    /// `AWS4-ECDSA-P256-SHA256`: ECDSA with a P-256 key derived from the key pair; the
    /// scope has no region and the request names the regions it is valid in.
    case sigV4a(regionSet: String)

    /// The name that starts the string to sign and the `Authorization` value.
    public var name: String {
        switch self {
        case .sigV4: "AWS4-HMAC-SHA256"
        case .sigV4a: "AWS4-ECDSA-P256-SHA256"
        }
    }

    /// Checks a SigV4a region set: comma-separated region names or patterns made of
    /// lowercase letters, digits, `-` and `*` (for example `us-east-1,us-west-2` or `*`).
    public static func validatedRegionSet(_ text: String) throws(SigningError) -> String {
        let regions = text.split(separator: ",", omittingEmptySubsequences: false)
        let valid = !text.isEmpty && regions.allSatisfy { region in
            !region.isEmpty && region.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "*")
            }
        }
        guard valid else { throw .invalidRegionSet(text) }
        return text
    }
}

/// A signature value: an HMAC (SigV4) or a DER-encoded ECDSA signature (SigV4a).
package enum SignatureValue: Sendable, Equatable {
    case hmac(SHA256Digest)
    case ecdsa([UInt8])

    /// Appends the lowercase hex form.
    func appendHex(to writer: inout ByteWriter) {
        switch self {
        case .hmac(let digest): digest.withUnsafeBytes { writer.writeHex($0) }
        case .ecdsa(let der): der.withUnsafeBytes { writer.writeHex($0) }
        }
    }

    /// The number of hex characters.
    var hexCount: Int {
        switch self {
        case .hmac: 64
        case .ecdsa(let der): der.count * 2
        }
    }

    /// The lowercase hex form.
    public var hex: String {
        switch self {
        case .hmac(let digest): digest.hex
        case .ecdsa(let der): Hex.encode(der)
        }
    }
}

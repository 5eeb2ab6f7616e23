/// The request body as the signer sees it: bytes to hash, a hash computed elsewhere
/// (for example from a file read in chunks), or no payload signing at all.
public enum Payload: Sendable, Equatable {
    /// No body; hashes as the SHA-256 of the empty string.
    case empty
    /// A body held in memory; hashed during signing.
    case bytes([UInt8])
    /// The lowercase hex SHA-256 of a body that is not held in memory.
    case sha256(String)
    /// `UNSIGNED-PAYLOAD`: the body is not covered by the signature.
    case unsigned

    /// The body bytes when they are held in memory.
    public var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }
}

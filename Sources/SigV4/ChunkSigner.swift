import MultiAuthCrypto

/// The signature chain of an S3 streaming upload: each chunk's signature is chained from the
/// previous one (the first from the seed, the header signature), and a trailer's signature
/// from the final chunk's. Used by ``AWSChunkedUpload``.
public struct ChunkSigner: Sendable {
    private let key: HMACSHA256Key
    private let datePrefix: [UInt8]
    /// The latest signature in the chain (the seed until a chunk is signed).
    public private(set) var previous: String

    init(seed: SigningResult, key: HMACSHA256Key, date: SigningDate) {
        self.key = key
        // "<amz-date>\n<scope>\n", shared by the chunk and trailer strings to sign.
        var prefix = Array("\(date.amzDate)\n".utf8)
        seed.scope.append(to: &prefix)
        prefix.append(UInt8(ascii: "\n"))
        datePrefix = prefix
        previous = seed.signature
    }

    /// Signs the next chunk (an empty one ends the body) and returns its signature:
    /// HMAC over `AWS4-HMAC-SHA256-PAYLOAD`, date, scope, previous signature, the empty
    /// hash and the chunk's hash.
    public mutating func signature(for chunk: UnsafeRawBufferPointer) -> String {
        var stringToSign = Array("AWS4-HMAC-SHA256-PAYLOAD\n".utf8) + datePrefix
        stringToSign.appendUTF8(previous)
        stringToSign.appendUTF8("\n" + PayloadHash.emptySHA256 + "\n")
        SHA256Hasher.hash(chunk).withUnsafeBytes { Hex.append($0, to: &stringToSign) }
        previous = stringToSign.withUnsafeBytes { key.authenticationCode(for: $0) }.hex
        return previous
    }

    /// The `x-amz-trailer-signature`: HMAC over `AWS4-HMAC-SHA256-TRAILER`, date, scope, the
    /// final chunk's signature and the hash of the canonical trailers (`name:value\n` each).
    public mutating func trailerSignature(canonicalTrailers: [UInt8]) -> String {
        var stringToSign = Array("AWS4-HMAC-SHA256-TRAILER\n".utf8) + datePrefix
        stringToSign.appendUTF8(previous + "\n")
        SHA256Hasher.hash(canonicalTrailers).withUnsafeBytes { Hex.append($0, to: &stringToSign) }
        previous = stringToSign.withUnsafeBytes { key.authenticationCode(for: $0) }.hex
        return previous
    }
}

import MultiAuthCrypto

/// The signature chain of an S3 streaming upload: each chunk's signature is chained from the
/// previous one (the first from the seed, the header signature), and a trailer's signature
/// from the final chunk's. Used by ``AWSChunkedUpload``.
public struct ChunkSigner: Sendable {
    private let key: HMACSHA256Key
    /// `AWS4-HMAC-SHA256-PAYLOAD\n<amz-date>\n<scope>\n`, the same for every chunk.
    private let chunkPrefix: [UInt8]
    /// `AWS4-HMAC-SHA256-TRAILER\n<amz-date>\n<scope>\n`.
    private let trailerPrefix: [UInt8]
    /// The latest signature in the chain as 64 hex digits.
    private var previousHex: [UInt8]

    /// The latest signature in the chain (the seed until a chunk is signed).
    public var previous: String { String(decoding: previousHex, as: UTF8.self) }

    init(seed: SigningResult, key: HMACSHA256Key, date: SigningDate) {
        self.key = key
        // "<amz-date>\n<scope>\n", shared by the chunk and trailer strings to sign.
        var datePrefix = Array("\(date.amzDate)\n".utf8)
        seed.scope.append(to: &datePrefix)
        datePrefix.append(UInt8(ascii: "\n"))
        chunkPrefix = Array("AWS4-HMAC-SHA256-PAYLOAD\n".utf8) + datePrefix
        trailerPrefix = Array("AWS4-HMAC-SHA256-TRAILER\n".utf8) + datePrefix
        previousHex = Array(seed.signature.utf8)
    }

    /// Signs the next chunk (an empty one ends the body) and returns its signature:
    /// HMAC over `AWS4-HMAC-SHA256-PAYLOAD`, date, scope, previous signature, the empty
    /// hash and the chunk's hash.
    public mutating func signature(for chunk: UnsafeRawBufferPointer) -> String {
        String(decoding: nextSignature(for: chunk), as: UTF8.self)
    }

    /// ``signature(for:)`` as the 64 hex digits' bytes.
    mutating func nextSignature(for chunk: UnsafeRawBufferPointer) -> [UInt8] {
        let chunkHash = SHA256Hasher.hash(chunk)
        return chain(chunkPrefix, emptyHashLine: true, hash: chunkHash)
    }

    /// The `x-amz-trailer-signature`: HMAC over `AWS4-HMAC-SHA256-TRAILER`, date, scope, the
    /// final chunk's signature and the hash of the canonical trailers (`name:value\n` each).
    public mutating func trailerSignature(canonicalTrailers: [UInt8]) -> String {
        String(decoding: chain(trailerPrefix, emptyHashLine: false, hash: SHA256Hasher.hash(canonicalTrailers)), as: UTF8.self)
    }

    /// HMAC over `prefix`, the previous signature, (the empty hash,) and `hash`, each on its
    /// own line; the result becomes the previous signature.
    private mutating func chain(_ prefix: [UInt8], emptyHashLine: Bool, hash: SHA256Digest) -> [UInt8] {
        let capacity = prefix.count + 65 + 65 + 64
        let mac = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = ByteWriter(buffer)
            out.write(prefix)
            out.write(previousHex)
            out.write(UInt8(ascii: "\n"))
            if emptyHashLine {
                out.write(PayloadHash.emptySHA256)
                out.write(UInt8(ascii: "\n"))
            }
            hash.withUnsafeBytes { out.writeHex($0) }
            return key.authenticationCode(for: UnsafeRawBufferPointer(out.written))
        }
        previousHex = ByteWriter.bytes(capacity: 64) { out in mac.withUnsafeBytes { out.writeHex($0) } }
        return previousHex
    }
}

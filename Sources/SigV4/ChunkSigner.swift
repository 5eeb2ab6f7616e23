import MultiAuthCrypto

/// S3 streaming uploads (`aws-chunked`, `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`): the headers
/// carry a seed signature, and each chunk is signed chained from the previous signature,
/// so a body of any size is signed in constant memory.
///
/// ```swift
/// var upload = try signer.signStreaming(request, decodedLength: size, chunkSize: 64 * 1024, date: .now())
/// // send upload.seed.signedRequest's headers, then for each chunk: upload.frame(chunk); finally upload.frame([])
/// ```
public struct ChunkSigner: Sendable {
    /// The payload marker in `x-amz-content-sha256`.
    public static let streamingPayload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
    /// S3's smallest chunk size (8 KiB), except for the last chunk.
    public static let minimumChunkSize = 8 * 1024

    /// The header signing, with the seed signature.
    public let seed: SigningResult
    private let key: HMACSHA256Key
    private let prefix: [UInt8]
    private var previous: String

    init(seed: SigningResult, key: HMACSHA256Key, date: SigningDate) {
        self.seed = seed
        self.key = key
        var prefix = Array("AWS4-HMAC-SHA256-PAYLOAD\n\(date.amzDate)\n".utf8)
        seed.scope.append(to: &prefix)
        prefix.append(UInt8(ascii: "\n"))
        self.prefix = prefix
        previous = seed.signature
    }

    /// The bytes on the wire for a body of `decodedLength` cut into `chunkSize` chunks,
    /// including the final empty chunk.
    public static func encodedLength(decodedLength: Int, chunkSize: Int) -> Int {
        func framed(_ size: Int) -> Int { String(size, radix: 16).utf8.count + 17 + 64 + 2 + size + 2 }
        let full = decodedLength / chunkSize
        let rest = decodedLength % chunkSize
        return full * framed(chunkSize) + (rest > 0 ? framed(rest) : 0) + framed(0)
    }

    /// Signs the next chunk (an empty one ends the body) and returns its signature.
    public mutating func signature(for chunk: UnsafeRawBufferPointer) -> String {
        var stringToSign = prefix
        stringToSign.appendUTF8(previous)
        stringToSign.appendUTF8("\n" + PayloadHash.emptySHA256 + "\n")
        SHA256.hash(chunk).withUnsafeBytes { Hex.append($0, to: &stringToSign) }
        previous = stringToSign.withUnsafeBytes { key.authenticationCode(for: $0) }.hex
        return previous
    }

    /// The framed chunk: `hex(size);chunk-signature=SIG\r\n` + data + `\r\n`.
    public mutating func frame(_ chunk: [UInt8]) -> [UInt8] {
        let signature = chunk.withUnsafeBytes { self.signature(for: $0) }
        var out = Array("\(String(chunk.count, radix: 16));chunk-signature=\(signature)\r\n".utf8)
        out.reserveCapacity(out.count + chunk.count + 2)
        out += chunk
        out += [0x0d, 0x0a]
        return out
    }
}

extension SigV4Signer {
    /// Signs the headers of a streaming upload and returns the chunk signer that continues
    /// the chain. Adds `Content-Encoding: aws-chunked`, `x-amz-decoded-content-length`,
    /// `Content-Length` (the encoded length) and the streaming `x-amz-content-sha256`.
    /// - Throws: ``SigningError/invalidChunkSize(_:)`` below S3's 8 KiB minimum.
    public func signStreaming(
        _ request: SignableRequest, decodedLength: Int, chunkSize: Int, date: SigningDate
    ) throws(SigningError) -> ChunkSigner {
        guard chunkSize >= ChunkSigner.minimumChunkSize else { throw .invalidChunkSize(chunkSize) }
        var request = request
        for name in ["x-amz-content-sha256", "content-encoding", "x-amz-decoded-content-length", "content-length"] {
            request.headers.removeAll(named: name)
        }
        request.headers.append(name: "Content-Encoding", value: "aws-chunked")
        request.headers.append(name: "Content-Length", value: String(ChunkSigner.encodedLength(decodedLength: decodedLength, chunkSize: chunkSize)))
        request.headers.append(name: "x-amz-content-sha256", value: ChunkSigner.streamingPayload)
        request.headers.append(name: "x-amz-decoded-content-length", value: String(decodedLength))
        let seed = try signHeaders(request, date: date)
        return ChunkSigner(seed: seed, key: signingKeyForStreaming(date), date: date)
    }
}

public import HTTPTypes
import MultiAuthCrypto

/// The checksum sent as a trailer after a streaming upload's last chunk.
public enum TrailingChecksum: String, Sendable, CaseIterable {
    /// `x-amz-checksum-crc32`: base64 of the big-endian CRC-32.
    case crc32
    /// `x-amz-checksum-sha256`: base64 of the SHA-256.
    case sha256

    /// The trailer's header name.
    public var headerName: String { "x-amz-checksum-" + rawValue }

    /// The base64 length of the value.
    var valueLength: Int { self == .crc32 ? 8 : 44 }
}

/// How an `aws-chunked` body is signed.
public enum StreamingMode: Sendable, Equatable {
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: every chunk signed.
    case signedChunks
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`: chunks signed, then a signed checksum trailer.
    case signedChunksWithTrailer(TrailingChecksum)
    /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`: plain chunks, then an unsigned checksum trailer.
    case unsignedChunksWithTrailer(TrailingChecksum)

    /// The `x-amz-content-sha256` value.
    public var contentSHA256: String {
        switch self {
        case .signedChunks: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
        case .signedChunksWithTrailer: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
        case .unsignedChunksWithTrailer: "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
        }
    }

    var trailer: TrailingChecksum? {
        switch self {
        case .signedChunks: nil
        case .signedChunksWithTrailer(let checksum), .unsignedChunksWithTrailer(let checksum): checksum
        }
    }

    var signsChunks: Bool { if case .unsignedChunksWithTrailer = self { false } else { true } }
}

/// An S3 streaming (`aws-chunked`) upload in progress: the signed headers (``seed``), then
/// each chunk framed with `frame(_:)` and the end with ``finish()``, so a body of any size
/// is signed and checksummed in constant memory.
///
/// ```swift
/// var upload = try signer.signStreaming(request, decodedLength: size, chunkSize: 64 * 1024, mode: .signedChunks, date: .now())
/// // send upload.seed.signedRequest's headers, then upload.frame(chunk) for each chunk, then upload.finish()
/// ```
public struct AWSChunkedUpload: Sendable {
    /// S3's smallest chunk size (8 KiB), except for the last chunk.
    public static let minimumChunkSize = 8 * 1024

    /// The header signing, with the seed signature.
    public let seed: SigningResult
    /// How the body is signed.
    public let mode: StreamingMode
    private var chain: ChunkSigner
    private var crc32 = CRC32()
    private var sha256 = SHA256Hasher()

    init(seed: SigningResult, key: HMACSHA256Key, date: SigningDate, mode: StreamingMode) {
        self.seed = seed
        self.mode = mode
        chain = ChunkSigner(seed: seed, key: key, date: date)
    }

    /// `\r\n`, which ends every chunk's data.
    public static let chunkEnd: [UInt8] = [0x0d, 0x0a]

    /// The framed chunk: `hex(size)[;chunk-signature=SIG]\r\n` + data + `\r\n`.
    public mutating func frame(_ chunk: [UInt8]) -> [UInt8] {
        chunk.withUnsafeBytes { frame($0) }
    }

    /// The framed chunk, from a buffer.
    public mutating func frame(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        var out = chunkHeader(for: chunk)
        out.reserveCapacity(out.count + chunk.count + 2)
        out.append(contentsOf: chunk)
        out += Self.chunkEnd
        return out
    }

    /// The next chunk's header line, `hex(size)[;chunk-signature=SIG]\r\n`, without copying
    /// the chunk: send it, then the chunk's bytes, then ``chunkEnd``. Signs (and checksums)
    /// the chunk, so call it once per chunk, in order.
    public mutating func chunkHeader(for chunk: UnsafeRawBufferPointer) -> [UInt8] {
        if mode.trailer == .crc32 { crc32.update(chunk) }
        if mode.trailer == .sha256 { sha256.update(chunk) }
        let signed = mode.signsChunks
        let signature = signed ? chain.nextSignature(for: chunk) : []
        let size = String(chunk.count, radix: 16)
        return ByteWriter.bytes(capacity: size.utf8.count + 17 + signature.count + 2) { out in
            out.write(size)
            if signed {
                out.write(";chunk-signature=" as StaticString)
                out.write(signature)
            }
            out.write(Self.chunkEnd)
        }
    }

    /// The end of the body: the empty final chunk, and the trailer (with its signature when
    /// chunks are signed) for the trailer modes.
    public mutating func finish() -> [UInt8] {
        var out = chunkHeader(for: UnsafeRawBufferPointer(start: nil, count: 0))
        guard let trailer = mode.trailer else { return out + Self.chunkEnd }
        let value = trailer == .crc32 ? crc32.bytes : sha256.finalize().bytes
        let canonical = Array("\(trailer.headerName):\(Base64.encode(value))\n".utf8)
        out += canonical.dropLast() + Self.chunkEnd
        if mode.signsChunks {
            out += Array("x-amz-trailer-signature:\(chain.trailerSignature(canonicalTrailers: canonical))\r\n".utf8)
        }
        return out + Self.chunkEnd
    }

    /// The bytes on the wire (Content-Length) for `decodedLength` bytes in `chunkSize` chunks.
    public static func encodedLength(decodedLength: Int, chunkSize: Int, mode: StreamingMode) -> Int {
        let signature = mode.signsChunks ? 17 + 64 : 0  // ";chunk-signature=" + 64 hex digits
        func framed(_ size: Int) -> Int { String(size, radix: 16).utf8.count + signature + 2 + size + 2 }
        let full = decodedLength / chunkSize
        let rest = decodedLength % chunkSize
        var total = full * framed(chunkSize) + (rest > 0 ? framed(rest) : 0)
        guard let trailer = mode.trailer else { return total + framed(0) }
        total += 1 + signature + 2  // "0[;chunk-signature=SIG]\r\n"
        total += trailer.headerName.utf8.count + 1 + trailer.valueLength + 2
        if mode.signsChunks { total += "x-amz-trailer-signature:".utf8.count + 64 + 2 }
        return total + 2
    }

}

extension SigV4Signer {
    /// Signs the headers of a streaming upload and returns the upload that frames and signs
    /// its chunks. Adds `Content-Encoding: aws-chunked`, `x-amz-decoded-content-length`,
    /// `Content-Length` (the encoded length), `x-amz-content-sha256` for `mode`, and
    /// `x-amz-trailer` for the trailer modes.
    /// - Throws: ``SigningError/invalidChunkSize(_:)`` below S3's 8 KiB minimum.
    /// - Throws: ``SigningError/streamingNeedsSigV4`` for signed chunks with SigV4a (their
    ///   ECDSA chunk signatures are not implemented, and HMAC would be wrong).
    public func signStreaming(
        _ request: HTTPRequest, decodedLength: Int, chunkSize: Int, mode: StreamingMode = .signedChunks, date: SigningDate
    ) throws(SigningError) -> AWSChunkedUpload {
        try signStreaming(SignableRequest(request, payload: .empty), decodedLength: decodedLength, chunkSize: chunkSize, mode: mode, date: date)
    }

    /// Streaming signing of the signer's own request form.
    package func signStreaming(
        _ request: SignableRequest, decodedLength: Int, chunkSize: Int, mode: StreamingMode = .signedChunks, date: SigningDate
    ) throws(SigningError) -> AWSChunkedUpload {
        guard chunkSize >= AWSChunkedUpload.minimumChunkSize else { throw .invalidChunkSize(chunkSize) }
        if case .sigV4a = signingAlgorithm, mode.signsChunks { throw .streamingNeedsSigV4 }
        var request = request
        for name in ["x-amz-content-sha256", "content-encoding", "x-amz-decoded-content-length", "content-length", "x-amz-trailer"] {
            request.headers.removeAll(named: name)
        }
        request.headers.append(name: "Content-Encoding", value: "aws-chunked")
        let length = AWSChunkedUpload.encodedLength(decodedLength: decodedLength, chunkSize: chunkSize, mode: mode)
        request.headers.append(name: "Content-Length", value: String(length))
        request.headers.append(name: "x-amz-content-sha256", value: mode.contentSHA256)
        request.headers.append(name: "x-amz-decoded-content-length", value: String(decodedLength))
        if let trailer = mode.trailer { request.headers.append(name: "x-amz-trailer", value: trailer.headerName) }
        let seed = try signHeaders(request, date: date)
        return AWSChunkedUpload(seed: seed, key: signingKeyForStreaming(date), date: date, mode: mode)
    }
}

import HTTPTypes
import MultiAuthCore
import MultiAuthSigV4

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// S3 streaming uploads as an ordinary IAM authorization: the headers are signed with the
/// streaming payload marker, and the file body becomes an `aws-chunked` stream that frames
/// and signs each chunk as it is read. The stream is replayable: every attempt re-reads the
/// file from the start under a new seed signature.
enum AWSChunkedBody {
    static func authorize(
        _ request: HTTPRequest, body: OutgoingBody, signer: SigV4Signer, chunkSize: Int, mode: StreamingMode, date: SigningDate
    ) async throws(SigningError) -> AuthorizedRequest {
        guard case .file(let path) = body else { throw .unhashableBody("\(body.name) (aws-chunked uploads stream a file)") }
        let size = try fileSize(path, name: body.name)
        let upload = try signer.signStreaming(request, decodedLength: size, chunkSize: chunkSize, mode: mode, date: date)
        let encoded = AWSChunkedUpload.encodedLength(decodedLength: size, chunkSize: chunkSize, mode: mode)
        let stream = StreamedBody(name: "aws-chunked upload of '\(path)'", length: encoded, isReplayable: true) { () throws(BodyError) -> any BodyReader in
            try AWSChunkedFileReader(path: path, upload: upload, decodedLength: size, chunkSize: chunkSize)
        }
        return AuthorizedRequest(request: try upload.seed.signedRequest(), body: .stream(stream), signing: upload.seed)
    }

    private static func fileSize(_ path: String, name: String) throws(SigningError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadableBody(path: path, reason: String(cString: strerror(errno))) }
        return Int(info.st_size)
    }
}

/// Reads a file one chunk at a time and frames (and signs) each chunk, so memory stays at
/// about one chunk whatever the file's size. A chunk is read into one reused buffer and sent
/// from there between its header line and its `\r\n`, never copied into a framed array.
final class AWSChunkedFileReader: BodyReader {
    private let path: String
    private var upload: AWSChunkedUpload
    private let descriptor: Int32
    private let chunkSize: Int
    /// What goes on the wire for the current chunk, in order: its header line, its data
    /// (the first `chunkLength` bytes of `chunk`), and `\r\n`; for the end, `finish()`'s bytes
    /// as the header and no data.
    private var header: [UInt8] = []
    private var chunk: [UInt8] = []
    private var chunkLength = 0
    private var chunkEnd: [UInt8] = []
    /// How far into header + data + end the current chunk has been sent.
    private var sent = 0
    private var remaining: Int
    private var finished = false

    /// Opens `path`, whose size must still be the `decodedLength` the upload was signed for.
    init(path: String, upload: AWSChunkedUpload, decodedLength: Int, chunkSize: Int) throws(BodyError) {
        let name = "the body file '\(path)'"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(body: name, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int(info.st_size) == decodedLength else {
            close(descriptor)
            throw .unreadable(body: name, reason: "its size changed after it was signed (\(decodedLength) bytes)")
        }
        self.path = path
        self.upload = upload
        self.chunkSize = chunkSize
        remaining = decodedLength
    }

    deinit { close(descriptor) }

    /// The bytes the current chunk puts on the wire: header, data and end.
    private var frameLength: Int { header.count + chunkLength + chunkEnd.count }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(BodyError) -> Int {
        if sent == frameLength {
            guard !finished else { return 0 }
            try refill()
        }
        var written = 0
        while written < buffer.count, sent < frameLength {
            written += copy(into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]))
        }
        return written
    }

    /// Copies from the part of the frame `sent` lies in; returns how many bytes.
    private func copy(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        func from(_ source: UnsafeRawBufferPointer, at offset: Int) -> Int {
            let count = min(buffer.count, source.count - offset)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
            sent += count
            return count
        }
        if sent < header.count { return header.withUnsafeBytes { from($0, at: sent) } }
        if sent < header.count + chunkLength {
            return chunk.withUnsafeBytes { from(UnsafeRawBufferPointer(rebasing: $0[..<chunkLength]), at: sent - header.count) }
        }
        return chunkEnd.withUnsafeBytes { from($0, at: sent - header.count - chunkLength) }
    }

    /// Reads the next chunk of exactly `chunkSize` bytes (fewer only for the last) and signs
    /// it, or prepares the end.
    private func refill() throws(BodyError) {
        let want = min(chunkSize, remaining)
        sent = 0
        guard want > 0 else {
            header = upload.finish()
            chunkLength = 0
            chunkEnd = []
            finished = true
            return
        }
        if chunk.count < want { chunk = [UInt8](repeating: 0, count: chunkSize) }
        var filled = 0
        while filled < want {
            let count = chunk.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { systemRead(descriptor, $0 + filled, want - filled) } ?? -1
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .unreadable(body: "the body file '\(path)'", reason: "it shrank or could not be read while it was uploaded") }
            filled += count
        }
        remaining -= want
        chunkLength = want
        header = chunk.withUnsafeBytes { upload.chunkHeader(for: UnsafeRawBufferPointer(rebasing: $0[..<want])) }
        chunkEnd = AWSChunkedUpload.chunkEnd
    }
}

/// The C `read`, named apart from ``AWSChunkedFileReader/read(into:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

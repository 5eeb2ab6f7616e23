import HTTPTransport
import SigV4
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file sent as an S3 streaming (`aws-chunked`) body: read one chunk at a time, framed
/// and signed as it goes, so memory stays at about one chunk whatever the file's size.
public final class AWSChunkedFileStream: HTTPBodyStream {
    /// The encoded length (the request's Content-Length).
    public let length: Int
    private let path: String
    private let state: Mutex<State>

    private struct State: Sendable {
        var upload: AWSChunkedUpload
        var descriptor: Int32
        var pending: [UInt8] = []
        var offset = 0
        var remaining: Int
        var finished = false
        let chunkSize: Int
    }

    /// Opens `path`, whose size must be the `decodedLength` the upload was signed for.
    /// - Throws: ``HTTPBodyStreamError`` when the file cannot be opened or its size differs.
    public init(path: String, upload: AWSChunkedUpload, decodedLength: Int, chunkSize: Int) throws(HTTPBodyStreamError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HTTPBodyStreamError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int(info.st_size) == decodedLength else {
            close(descriptor)
            throw HTTPBodyStreamError("\(path) is not \(decodedLength) bytes long")
        }
        self.path = path
        length = AWSChunkedUpload.encodedLength(decodedLength: decodedLength, chunkSize: chunkSize, mode: upload.mode)
        state = Mutex(State(upload: upload, descriptor: descriptor, remaining: decodedLength, chunkSize: chunkSize))
    }

    deinit {
        _ = state.withLock { close($0.descriptor) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPBodyStreamError) -> Int {
        try state.withLock { state throws(HTTPBodyStreamError) -> Int in
            if state.offset == state.pending.count {
                guard !state.finished else { return 0 }
                try refill(&state)
            }
            let count = min(buffer.count, state.pending.count - state.offset)
            state.pending.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[state.offset..<state.offset + count]))
            }
            state.offset += count
            return count
        }
    }

    /// Frames the next chunk of exactly `chunkSize` bytes (fewer only for the last), or the end.
    private func refill(_ state: inout State) throws(HTTPBodyStreamError) {
        let want = min(state.chunkSize, state.remaining)
        guard want > 0 else {
            state.pending = state.upload.finish()
            state.offset = 0
            state.finished = true
            return
        }
        var chunk = [UInt8](repeating: 0, count: want)
        var filled = 0
        while filled < want {
            let count = chunk.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { systemRead(state.descriptor, $0 + filled, want - filled) } ?? -1
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw HTTPBodyStreamError("\(path) shrank or could not be read while it was uploaded") }
            filled += count
        }
        state.remaining -= want
        state.pending = state.upload.frame(chunk)
        state.offset = 0
    }
}

/// The C `read`, named apart from ``AWSChunkedFileStream/read(into:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

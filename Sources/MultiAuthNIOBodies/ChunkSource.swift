#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

package import MultiAuthCore
package import MultiAuthHTTP
package import NIOCore
import Synchronization

/// The chunks of one upload, read one at a time off the cooperative pool.
package struct UploadChunks: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer
    let source: ChunkSource

    /// The chunks of `source`.
    package init(source: ChunkSource) { self.source = source }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source) }

    /// Reads the next chunk on a thread of its own.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let source: ChunkSource

        package func next() async throws -> ByteBuffer? {
            let source = source
            return try await runOnThreadPool { Result { () throws(BodyError) -> ByteBuffer? in try source.next() } }
        }
    }
}

/// Where an upload's bytes come from: a file descriptor or a ``MultiAuthCore/BodyReader``.
///
/// `@unchecked Sendable`: one transfer reads it, one chunk at a time (each `next()` awaits
/// the last), so its state is never touched by two threads at once.
package final class ChunkSource: @unchecked Sendable {
    static let chunkSize = 128 << 10
    let name: String
    /// The bytes it produces, exactly.
    package let length: Int
    private var descriptor: Int32 = -1
    private var reader: (any BodyReader)?
    private var produced = 0
    private let recorded = Mutex<BodyError?>(nil)

    init(name: String, reader: any BodyReader, length: Int) {
        self.name = name
        self.reader = reader
        self.length = length
    }

    init(file body: OutgoingBody) throws(HTTPTransportError) {
        guard case .file(let path) = body else { preconditionFailure("ChunkSource(file:) takes a file body") }
        name = body.name
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
            throw .body(.unreadable(body: name, reason: String(cString: strerror(errno))))
        }
        length = Int(info.st_size)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The source of a file or stream body, opened now (an unreadable file fails here);
    /// nil for a body already in memory.
    package static func opening(_ body: OutgoingBody) throws(HTTPTransportError) -> ChunkSource? {
        switch body {
        case .stream(let stream):
            do { return ChunkSource(name: body.name, reader: try stream.open(), length: stream.length) } catch { throw .body(error) }
        case .file: return try ChunkSource(file: body)
        case .empty, .bytes: return nil
        }
    }

    /// The next chunk; nil after exactly ``length`` bytes.
    func next() throws(BodyError) -> ByteBuffer? {
        let wanted = min(length - produced, Self.chunkSize)
        guard wanted > 0 else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: wanted)
        var failure: BodyError?
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { space in
            do throws(BodyError) { return try read(into: UnsafeMutableRawBufferPointer(rebasing: space[..<wanted])) } catch {
                failure = error
                return 0
            }
        }
        if buffer.readableBytes == 0, failure == nil {
            failure = .shorterThanAnnounced(body: name, announced: length, produced: produced)
        }
        if let failure {
            recorded.withLock { $0 = failure }
            throw failure
        }
        produced += buffer.readableBytes
        return buffer
    }

    /// Why reading failed, if it did. AsyncHTTPClient may report the connection it then
    /// closes rather than the body's error, depending on which it sees first.
    package var failure: BodyError? { recorded.withLock { $0 } }

    private func read(into space: UnsafeMutableRawBufferPointer) throws(BodyError) -> Int {
        if let reader { return try reader.read(into: space) }
        while true {
            let count = readFile(descriptor, space.baseAddress, space.count)
            if count >= 0 { return count }
            if errno != EINTR { throw .unreadable(body: name, reason: String(cString: strerror(errno))) }
        }
    }
}

/// POSIX `read`, named apart from ``ChunkSource``'s own `read(into:)`.
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(descriptor, buffer, count) }


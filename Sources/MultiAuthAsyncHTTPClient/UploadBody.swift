import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
import MultiAuthHTTP
import MultiAuthCore
import MultiAuthNIOBodies
import NIOCore
import Synchronization

/// A ``MultiAuthCore/OutgoingBody`` as an AsyncHTTPClient body: bytes as they are; files and
/// streams read in chunks on NIO's thread pool (`runOnThreadPool`) while
/// they are sent, never held whole, and exactly the announced length.
enum UploadBody {
    /// The body to send, opened now so an unreadable file fails before anything is sent,
    /// and the source of a file or stream, which remembers why reading it failed.
    static func make(_ body: OutgoingBody) throws(HTTPTransportError) -> (body: HTTPClientRequest.Body?, source: ChunkSource?) {
        switch body {
        case .empty: return (nil, nil)
        case .bytes(let bytes): return (.bytes(bytes), nil)
        case .file, .stream:
            guard let source = try ChunkSource.opening(body) else { return (nil, nil) }
            return (.stream(UploadChunks(source: source), length: .known(Int64(source.length))), source)
        }
    }
}


import HTTPTypes
import MultiAuthCore
import NIOCore
import NIOHTTP1

/// A request as the forwarding path writes it to an upstream connection: the head in
/// swift-http-types, written out as bytes once (``UpstreamRequestEncoder``), with no SwiftNIO
/// head made on the way.
enum UpstreamRequestPart: Sendable {
    case head(HTTPRequest)
    case body(ByteBuffer)
    case end
}

/// Writes the requests an upstream connection sends as HTTP/1.1 bytes, in place of SwiftNIO's
/// request encoder: a request and a small body go out as one buffer (one write of one piece)
/// when the request ends or is flushed. The framing is the request's own: the forwarding
/// path gives every body a `Content-Length` (``UpstreamExchangeHandler``) and drops
/// `Transfer-Encoding` with the other hop-by-hop fields, so a body is written as it is,
/// and in chunks only when the head says `Transfer-Encoding: chunked`.
///
/// Sits nearest the socket, before the response decoder (``UpstreamResponseDecoder``), which
/// reads the method of each request written, so that it knows a response to `HEAD` has no body.
final class UpstreamRequestEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = UpstreamRequestPart
    typealias OutboundOut = IOData

    private var gathered = GatheredWrites()
    private var chunked = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let request):
            chunked = request.headerFields.lastValue(.transferEncoding)?.lowercased() == "chunked"
            var buffer = context.channel.allocator.buffer(capacity: 2048)
            buffer.writeRequestHead(request)
            gathered.start(buffer, context: context, promise: promise)
        case .body(let bytes):
            guard chunked else { return gathered.send(bytes, context: context, promise: promise) }
            guard bytes.readableBytes > 0 else { return gathered.complete(promise, context: context) }
            gathered.send(ByteBuffer.chunk(bytes, allocator: context.channel.allocator), context: context, promise: promise)
        case .end:
            if chunked {
                gathered.send(ByteBuffer(staticString: "0\r\n\r\n"), context: context, promise: promise)
            } else {
                gathered.complete(promise, context: context)
            }
        }
    }

    func flush(context: ChannelHandlerContext) {
        gathered.sendPending(context)
        context.flush()
    }
}

/// SwiftNIO's HTTP/1 response decoder, told each request's method as ``UpstreamRequestPart``
/// goes by (it needs no more of the request: a response to `HEAD` has no body).
struct UpstreamResponseDecoder: WriteObservingByteToMessageDecoder {
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = UpstreamRequestPart

    private let decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)

    func write(data: UpstreamRequestPart) {
        guard case .head(let request) = data else { return }
        decoder.write(data: .head(HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: "")))
    }

    func decoderAdded(context: ChannelHandlerContext) { decoder.decoderAdded(context: context) }

    func decoderRemoved(context: ChannelHandlerContext) { decoder.decoderRemoved(context: context) }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        try decoder.decode(context: context, buffer: &buffer)
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decoder.decodeLast(context: context, buffer: &buffer, seenEOF: seenEOF)
    }
}

@available(*, unavailable)
extension UpstreamRequestEncoder: Sendable {}

/// What an encoder holds back of a message so that a small one is written as one buffer: the
/// head, and what follows it while it stays under ``limit`` and no write waits on a promise.
struct GatheredWrites {
    /// The most bytes gathered before they are written.
    static let limit = 16 << 10

    private var pending: ByteBuffer?

    /// Starts a message with its head (written at once when a promise waits on it).
    mutating func start(_ head: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        sendPending(context)
        guard promise == nil else { return context.write(NIOAny(IOData.byteBuffer(head)), promise: promise) }
        pending = head
    }

    /// `bytes` after what is pending: gathered while the message is small and nobody waits on
    /// the write, written otherwise.
    mutating func send(_ bytes: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        if promise == nil, var buffer = pending, buffer.readableBytes + bytes.readableBytes <= Self.limit {
            pending = nil
            buffer.writeImmutableBuffer(bytes)
            pending = buffer
            return
        }
        sendPending(context)
        context.write(NIOAny(IOData.byteBuffer(bytes)), promise: promise)
    }

    /// Completes `promise` in order, after what was written before it: with an empty write.
    mutating func complete(_ promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        guard let promise else { return }
        sendPending(context)
        context.write(NIOAny(IOData.byteBuffer(ByteBuffer())), promise: promise)
    }

    /// Writes what is pending.
    mutating func sendPending(_ context: ChannelHandlerContext) {
        guard let bytes = pending else { return }
        pending = nil
        context.write(NIOAny(IOData.byteBuffer(bytes)), promise: nil)
    }
}

extension ByteBuffer {
    /// `bytes` as one chunk of a chunked body (RFC 9112 section 7.1): its size in hex, CRLF,
    /// the bytes, CRLF.
    static func chunk(_ bytes: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var chunk = allocator.buffer(capacity: bytes.readableBytes + 16)
        chunk.writeString(String(bytes.readableBytes, radix: 16))
        chunk.writeStaticString("\r\n")
        chunk.writeImmutableBuffer(bytes)
        chunk.writeStaticString("\r\n")
        return chunk
    }
}

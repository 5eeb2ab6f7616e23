import HTTPTypes
@testable import MultiAuthReverseProxy
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// The upstream connection's request encoder on an `EmbeddedChannel`, with the response
/// decoder (SwiftNIO's, told each method) behind it as on the forwarding path. Expected bytes are RFC 9112's request line,
/// fields and chunked framing (sections 3, 5 and 7.1), written out by hand.
struct UpstreamRequestEncoderTests {
    static func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(UpstreamRequestEncoder())
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(UpstreamResponseDecoder()))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var pieces: [String] = []
        while case .byteBuffer(var buffer) = try channel.readOutbound(as: IOData.self) {
            pieces.append(buffer.readString(length: buffer.readableBytes) ?? "")
        }
        return pieces
    }

    static func head(_ method: HTTPRequest.Method, _ fields: HTTPFields) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: "up", path: "/a?b=1", headerFields: fields)
    }

    /// The buffers written for a request of `method` with `fields` and `body`.
    static func sent(_ method: HTTPRequest.Method, _ fields: HTTPFields, body: String) throws -> [String] {
        let channel = try connection()
        defer { _ = try? channel.finish() }
        channel.write(UpstreamRequestPart.head(head(method, fields)), promise: nil)
        channel.write(UpstreamRequestPart.body(ByteBuffer(string: body)), promise: nil)
        channel.writeAndFlush(UpstreamRequestPart.end, promise: nil)
        return try written(channel)
    }

    @Test func aRequestAndItsBodyGoOutAsOneBuffer() throws {
        let sent = try Self.sent(.post, [.contentLength: "5"], body: "hello")
        #expect(sent == ["POST /a?b=1 HTTP/1.1\r\nHost: up\r\nContent-Length: 5\r\n\r\nhello"])
    }

    @Test func aChunkedHeadHasItsBodyChunked() throws {
        let sent = try Self.sent(.put, [.transferEncoding: "Chunked"], body: "0123456789abcdefX")
        #expect(sent == ["PUT /a?b=1 HTTP/1.1\r\nHost: up\r\nTransfer-Encoding: Chunked\r\n\r\n11\r\n0123456789abcdefX\r\n0\r\n\r\n"])
    }

    /// The decoder still learns each method: the answer to a HEAD ends with its head, though
    /// it announces a length.
    @Test func theAnswerToAHeadRequestHasNoBody() throws {
        let channel = try Self.connection()
        channel.writeAndFlush(UpstreamRequestPart.head(Self.head(.head, [:])), promise: nil)
        channel.writeAndFlush(UpstreamRequestPart.end, promise: nil)
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"))
        guard case .head(let head) = try channel.readInbound(as: HTTPClientResponsePart.self) else {
            Issue.record("no head")
            return
        }
        #expect(head.status == .ok)
        guard case .end = try channel.readInbound(as: HTTPClientResponsePart.self) else {
            Issue.record("the answer did not end with its head")
            return
        }
        _ = try? channel.finish()
    }
}

import HTTPTypes
@testable import MultiAuthReverseProxy
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

/// The client connection's codec on an `EmbeddedChannel`: raw HTTP/1.1 in through SwiftNIO's
/// decoder, answers out as bytes. Expected bytes are RFC 9112's framing, written out by hand:
/// section 6.1 (chunked when no length is known), 6.3 (no body for HEAD, 1xx, 204, 304),
/// 7.1 (a chunk is its size in hex, CRLF, the bytes, CRLF; `0` CRLF CRLF ends them).
struct ClientHTTP1CodecTests {
    static func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([ByteToMessageHandler(HTTPRequestDecoder()), ClientHTTP1Codec()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    static func answer(_ channel: EmbeddedChannel, _ head: HTTPResponse, body: String?) throws -> String {
        channel.write(HTTPResponsePart.head(head), promise: nil)
        if let body { channel.write(HTTPResponsePart.body(ByteBuffer(string: body)), promise: nil) }
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        var text = ""
        while var buffer = try channel.readOutbound(as: IOData.self).flatMap({ if case .byteBuffer(let b) = $0 { b } else { nil } }) {
            text += buffer.readString(length: buffer.readableBytes) ?? ""
        }
        return text
    }

    @Test func anAnswerWithoutALengthGoesInChunks() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"))
        let text = try Self.answer(channel, HTTPResponse(status: .ok), body: "hello")
        #expect(text == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test func anAnswerWithALengthKeepsItAndDropsTransferEncoding() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"))
        let head = HTTPResponse(status: .ok, headerFields: [.contentLength: "5", .transferEncoding: "chunked"])
        #expect(try Self.answer(channel, head, body: "hello") == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        _ = try? channel.finish()
    }

    @Test func aHeadAnswerKeepsItsLengthAndSendsNoBody() throws {
        let channel = try Self.connection()
        // Two pipelined requests: the second answer is framed for the second method.
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\nHEAD /a HTTP/1.1\r\nHost: a\r\n\r\n"))
        let head = HTTPResponse(status: .ok, headerFields: [.contentLength: "5"])
        #expect(try Self.answer(channel, head, body: "hello") == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        #expect(try Self.answer(channel, head, body: "hello") == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test(arguments: [204, 304])
    func aStatusWithoutABodyDropsBothFramingFields(code: Int) throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"))
        let head = HTTPResponse(status: .init(code: code), headerFields: [.contentLength: "5", .transferEncoding: "chunked", .eTag: "\"x\""])
        let reason = HTTPResponse.Status(code: code).reasonPhrase
        #expect(try Self.answer(channel, head, body: nil) == "HTTP/1.1 \(code) \(reason)\r\nETag: \"x\"\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test func aHeadBecomesOneRequestWithItsHostAsAuthorityAndItsCookieWhole() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /x?q=1 HTTP/1.1\r\nhOsT: a.example\r\nCookie: a=1; b=2\r\nX-Y: z\r\n\r\n"))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head passed on")
            return
        }
        #expect(request.method == .get && request.authority == "a.example" && request.path == "/x?q=1")
        #expect(request.headerFields.map(\.name.rawName) == ["Cookie", "X-Y"] && request.headerFields[.cookie] == "a=1; b=2")
        // Upstream, `Host` goes first and every `Cookie` is one field.
        var twoCookies = request
        twoCookies.headerFields.append(HTTPField(name: .cookie, value: "c=3"))
        var sent = ByteBuffer()
        sent.writeRequestHead(twoCookies)
        #expect(String(buffer: sent) == "GET /x?q=1 HTTP/1.1\r\nHost: a.example\r\nCookie: a=1; b=2; c=3\r\nX-Y: z\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test func anUpstreamStatusAndFieldsComeAcrossAsTheyWere() {
        let head = HTTPResponseHead(version: .http1_1, status: .custom(code: 299, reasonPhrase: "Fine"), headers: ["X-A": "1", "Set-Cookie": "s=1"])
        let response = HTTP1Conversions.response(head)
        #expect(response?.status.code == 299 && response?.status.reasonPhrase == "Fine")
        #expect(response?.headerFields.map { "\($0.name.rawName)=\($0.value)" } == ["X-A=1", "Set-Cookie=s=1"])
        #expect(HTTP1Conversions.response(HTTPResponseHead(version: .http1_1, status: .custom(code: 1000, reasonPhrase: "x"))) == nil)
    }
}

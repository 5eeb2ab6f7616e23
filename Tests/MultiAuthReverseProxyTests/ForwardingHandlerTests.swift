import HTTPTypes
@testable import MultiAuthReverseProxy
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

/// The forwarding path's connection handlers on an `EmbeddedChannel`: raw HTTP/1 bytes in,
/// through SwiftNIO's own decoder and encoder, bytes out. Expected answers come from RFC 9112
/// (one `Host`, origin-form targets) and RFC 9110 §10.1.1 (`100 Continue`).
struct RequestHeadRulesTests {
    /// Keeps the refusals ``ClientHTTP1Codec`` sends on in place of a head.
    final class Refusals: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var problems: [String] = []

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let refused = event as? RefusedHead { problems.append(refused.problem) } else { context.fireUserInboundEventTriggered(event) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }
    }

    /// A connection with SwiftNIO's HTTP/1 request decoder in front of ``ClientHTTP1Codec``.
    static func connection(_ refusals: Refusals = Refusals()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([ByteToMessageHandler(HTTPRequestDecoder()), ClientHTTP1Codec(), refusals])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    /// Everything the channel wrote, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { text += buffer.readString(length: buffer.readableBytes) ?? "" }
        return text
    }

    @Test(arguments: [
        ("GET /a HTTP/1.1\r\n\r\n", "a Host field is required"),
        ("GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "exactly one non-empty Host field is allowed"),
        ("GET http://a/b HTTP/1.1\r\nHost: a\r\n\r\n", "only origin-form request targets (starting with /) are forwarded"),
        ("GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", "the request target holds a character a URL may not"),
    ])
    func aHeadThatBreaksARuleBecomesARefusalAndNothingAfterPasses(request: String, reason: String) throws {
        let refusals = Refusals()
        let channel = try Self.connection(refusals)
        try channel.writeInbound(ByteBuffer(string: request + "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "nothing passes on, not even the next request")
        #expect(refusals.problems == [reason])
        #expect(try Self.written(channel).isEmpty, "the answer is the forwarding handler's, in its turn")
        _ = try? channel.finish()
    }

    @Test func anUpgradeHeadIsMarkedToCloseTheConnection() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n\r\n"))
        guard case .head(let head) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head passed on")
            return
        }
        #expect(head.headerFields[values: .connection] == ["close"])
        _ = try? channel.finish()
    }

    @Test func aGoodHeadPassesOnUntouched() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /a/b%20c?x=1&y=~ HTTP/1.1\r\nHost: example.com\r\n\r\n"))
        guard case .head(let head) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head passed on")
            return
        }
        #expect(head.path == "/a/b%20c?x=1&y=~" && head.authority == "example.com" && head.headerFields.isEmpty)
        #expect(try Self.written(channel).isEmpty && channel.isActive)
        _ = try? channel.finish()
    }
}

struct ExpectContinueTests {
    static func head(expecting: Bool, length: String? = "5") -> HTTPRequestPart {
        var fields = HTTPFields()
        if let length { fields[.contentLength] = length }
        if expecting { fields[.expect] = "100-continue" }
        return .head(HTTPRequest(method: .put, scheme: "http", authority: "a", path: "/", headerFields: fields))
    }

    static func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ExchangeGuards(headLimit: .seconds(10), bodyTimeout: .seconds(20), minimumRate: 500))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    @Test func theContinueGoesOutOnlyWhenTheBodyIsWanted() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head(expecting: true))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        channel.pipeline.triggerUserOutboundEvent(ExchangeGuards.Proceed(), promise: nil)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == .head(HTTPResponse(status: .continue)))
        // Asked again (a second consumer), no second 100.
        channel.pipeline.triggerUserOutboundEvent(ExchangeGuards.Proceed(), promise: nil)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test func aRefusalBeforeTheBodyEndsTheConnectionWithIt() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head(expecting: true))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .forbidden)))
        guard case .head(let answer) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer head")
            return
        }
        #expect(answer.status == .forbidden && answer.headerFields[.connection] == "close")
    }

    @Test func noBodyMeansNoExpectation() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head(expecting: true, length: nil))
        channel.pipeline.triggerUserOutboundEvent(ExchangeGuards.Proceed(), promise: nil)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        guard case .head(let answer) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer head")
            return
        }
        #expect(answer.status == .ok && answer.headerFields[.connection] == nil, "no 100 first, and the connection stays")
    }
}

/// ``ExchangeGuards``' deadlines on an embedded loop's clock: a head within 10 s of the
/// connection or the last answer, a body within 20 s plus a second per 500 bytes, never
/// banked more than 20 s ahead.
struct ExchangeGuardsDeadlineTests {
    static func connection() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: ExchangeGuards(headLimit: .seconds(10), bodyTimeout: .seconds(20), minimumRate: 500), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, loop)
    }

    static let get = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: "a", path: "/"))

    @Test func aHeadMustComeWithinTheLimitOfTheLastAnswer() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: .seconds(9))
        try channel.writeInbound(Self.get)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        loop.advanceTime(by: .seconds(30))
        #expect(channel.isActive, "no deadline while the answer is awaited")
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        loop.advanceTime(by: .seconds(10) - .milliseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "no next head within 10 s of the answer")
    }

    @Test func aTrickledBodyIsAnswered408() throws {
        let (channel, loop) = try Self.connection()
        let post = HTTPRequestPart.head(HTTPRequest(method: .post, scheme: "http", authority: "a", path: "/", headerFields: [.contentLength: "100000"]))
        try channel.writeInbound(post)
        // 10,000 bytes at once earn 20 s, but credit stops at 20 s from now.
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x61, count: 10_000)))
        channel.read()  // the server waits for more: the time is the client's
        loop.advanceTime(by: .seconds(19))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        loop.advanceTime(by: .seconds(1))
        guard case .head(let answer) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no 408")
            return
        }
        #expect(answer.status == .requestTimeout && answer.headerFields[.connection] == "close")
    }
}

import HTTPTypes
import MultiAuthServerGuards
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// `RequestHeadDeadline` on an `EmbeddedChannel`, whose event loop runs on a clock the test
/// advances: no sleeps, and the deadline is checked to the millisecond.
struct RequestHeadDeadlineTests {
    static let limit = TimeAmount.seconds(10)

    /// An active channel (as a server's accepted connection is) with the handler in place.
    static func connection() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: RequestHeadDeadline(limit: limit), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, loop)
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/"))

    @Test func aConnectionWithNoHeadClosesAtTheLimit() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: Self.limit - .milliseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aHeadInTimeLeavesTheBodyUnbounded() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: .seconds(9))
        try channel.writeInbound(Self.head)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.head)
        // A slow upload: the head's deadline no longer applies.
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        _ = try? channel.finish()
    }

    @Test func theDeadlineStartsAgainWhenTheAnswerEnds() throws {
        let (channel, loop) = try Self.connection()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        loop.advanceTime(by: .seconds(30))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        loop.advanceTime(by: .seconds(30))
        #expect(channel.isActive, "the answer has not ended: the deadline is not running")
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        loop.advanceTime(by: Self.limit - .milliseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "no next head within the limit after the answer")
    }
}

import HTTPTypes
package import NIOCore
package import NIOHTTPTypes

/// Answers `Expect: 100-continue` (RFC 9110 §10.1.1) for the requests of one connection.
///
/// A client that asks waits for `100 Continue` before it sends the body (curl waits a
/// second, then sends anyway). The responder says when the head has passed and the body is
/// wanted (``InboundBody/proceed()``); the `100` goes out then. When the final
/// answer comes first (the head was refused), the body the client holds back is never read:
/// the answer gets `Connection: close` and the connection ends with it (``CloseAfterAnswer``),
/// so no half-sent body is taken for the next request.
///
/// Goes after the HTTP/1 decoder (Hummingbird's `additionalChannelHandlers`), one per
/// connection, on the connection's event loop only.
package final class ExpectContinue: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    /// The event a responder sends down the pipeline once the request's body is wanted.
    package struct Proceed: Sendable {
        /// The event.
        package init() {}
    }

    private enum State { case idle, expecting, continued }
    private var state = State.idle

    /// A handler for one connection.
    package init() {}

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), state == .idle, Self.expectsContinue(head) { state = .expecting }
        context.fireChannelRead(data)
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Proceed else { return context.triggerUserOutboundEvent(event, promise: promise) }
        if state == .expecting {
            state = .continued
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        promise?.succeed()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.kind != .informational && state == .expecting:
            // ``CloseAfterAnswer`` ends the connection once this answer is out.
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            state = .idle
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    /// `Expect: 100-continue` on a request that has a body to hold back (RFC 9110 §10.1.1:
    /// the expectation means nothing without one).
    static func expectsContinue(_ head: HTTPRequest) -> Bool {
        head.headerFields[.expect]?.lowercased() == "100-continue" && head.announcesBody
    }
}

import HTTPTypes
import MultiAuthCore
package import NIOCore
package import NIOHTTPTypes
import MultiAuthServerGuards

/// What the proxy and the gateway ask of every exchange on a connection, in one handler so
/// that each request part and answer part is looked at once, not once per rule (each
/// handler a part passes through cost more than the rule it applied):
/// - a request head must arrive whole within `headLimit` of the connection opening or the
///   last answer ending (as ``MultiAuthServerGuards/RequestHeadDeadline``);
/// - a request body must keep a pace (``ExchangeGuards+BodyPace.swift``);
/// - `Expect: 100-continue` is answered when the body is wanted, and an answer marked
///   `Connection: close` ends the connection (``ExchangeGuards+Answers.swift``).
///
/// Goes after the HTTP/1 decoder and its conversion to swift-http-types, one per
/// connection, on the connection's event loop only.
package final class ExchangeGuards: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    /// The event a responder sends down the pipeline once the request's body is wanted: a
    /// client waiting on `Expect: 100-continue` gets its `100 Continue` then.
    package struct Proceed: Sendable {
        /// The event.
        package init() {}
    }

    let headLimit: TimeAmount
    var headTimer = ConnectionTimer()

    let bodyTimeout: TimeAmount
    let minimumRate: Int
    var bodyTimer = ConnectionTimer()
    /// When the body is cut off unless more of it comes.
    var bodyDeadline = NIODeadline.uptimeNanoseconds(0)
    /// The pipeline asked for more and has not had it yet: the client is the one waiting.
    var readPending = false
    var answerStarted = false

    enum Expectation { case idle, expecting, continued }
    var expectation = Expectation.idle
    /// The answer going out ends the connection.
    var closing = false

    /// Guards with a head deadline of `headLimit`, and a body deadline of `bodyTimeout` plus a
    /// second for each `minimumRate` bytes received.
    package init(headLimit: TimeAmount, bodyTimeout: TimeAmount, minimumRate: Int) {
        self.headLimit = headLimit
        self.bodyTimeout = bodyTimeout
        self.minimumRate = max(1, minimumRate)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHead(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        armHead(context)
        context.fireChannelActive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) { stop() }

    package func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headTimer.clear()
            if head.announcesBody { bodyBegins(context) }
            if expectation == .idle, Self.expectsContinue(head) { expectation = .expecting }
        case .body(let bytes): bodyArrived(bytes.readableBytes, context)
        case .end: bodyTimer.clear()
        }
        context.fireChannelRead(data)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        readPending = false
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        readPending = true
        context.read()
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Proceed else { return context.triggerUserOutboundEvent(event, promise: promise) }
        proceed(context)
        promise?.succeed()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            answerStarted = true
            answerBegins(head, data, context: context, promise: promise)
        case .end:
            answerEnds(data, context: context, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    private func armHead(_ context: ChannelHandlerContext) {
        headTimer.set(context.eventLoop.now + headLimit, on: context.eventLoop.assumeIsolated()) { [self] in checkHead(context) }
    }

    private func checkHead(_ context: ChannelHandlerContext) {
        if headTimer.fired(on: context.eventLoop.assumeIsolated(), check: { [self] in checkHead(context) }) { context.close(promise: nil) }
    }

    /// The head deadline starts again for the next request.
    func nextHead(_ context: ChannelHandlerContext) { armHead(context) }

    private func stop() {
        headTimer.stop()
        bodyTimer.stop()
    }
}

@available(*, unavailable)
extension ExchangeGuards: Sendable {}

extension HTTPRequest {
    /// The head says a body follows: chunks, or a `Content-Length` above 0.
    var announcesBody: Bool {
        headerFields.contains(.transferEncoding) || (headerFields.firstValue(.contentLength).flatMap { Int($0) } ?? 0) > 0
    }
}

import HTTPTypes
import MultiAuthServerGuards
import NIOCore
import NIOHTTPTypes

/// Cuts off a request body that arrives too slowly, as Apache's `mod_reqtimeout` does: the
/// body has `bodyTimeout` from its head's arrival, and every `minimumRate` bytes that arrive
/// earn one more second, but never more than `bodyTimeout` ahead of now: credit cannot be
/// banked, so a body sent fast and then trickled is cut off a `bodyTimeout` after the trickle
/// starts (before, its early bytes bought minutes, holding a large spool file). A large upload
/// at a reasonable speed keeps going; a client trickling a byte every few seconds is answered
/// `408 Request Timeout` (or, once the answer has begun, has its connection closed), so it
/// cannot hold a connection, or a place under `--max-connections`, for long. The time starts
/// again when a `100 Continue` goes out, and time while the server itself holds reading back
/// does not count.
extension ExchangeGuards {
    func bodyBegins(_ context: ChannelHandlerContext) {
        bodyDeadline = context.eventLoop.now + bodyTimeout
        answerStarted = false
        armBody(context)
    }

    func bodyArrived(_ count: Int, _ context: ChannelHandlerContext) {
        guard bodyTimer.isSet else { return }
        let now = context.eventLoop.now
        bodyDeadline = min(now + bodyTimeout, max(bodyDeadline, now) + .milliseconds(Int64(count) * 1_000 / Int64(minimumRate)))
        armBody(context)
    }

    /// The client held the body back until now (`Expect: 100-continue`).
    func bodyReleased(_ context: ChannelHandlerContext) {
        guard bodyTimer.isSet else { return }
        bodyDeadline = context.eventLoop.now + bodyTimeout
        armBody(context)
    }

    private func armBody(_ context: ChannelHandlerContext) {
        bodyTimer.set(bodyDeadline, on: context.eventLoop.assumeIsolated()) { [self] in checkBody(context) }
    }

    private func checkBody(_ context: ChannelHandlerContext) {
        if bodyTimer.fired(on: context.eventLoop.assumeIsolated(), check: { [self] in checkBody(context) }) { bodyExpired(context) }
    }

    private func bodyExpired(_ context: ChannelHandlerContext) {
        guard readPending else {
            // The server is not reading (the upstream is slow to take the body): not the
            // client's time. Look again a full timeout later.
            bodyDeadline = context.eventLoop.now + bodyTimeout
            return armBody(context)
        }
        guard !answerStarted else { return context.close(promise: nil) }
        let answer = UpstreamForwarder.errorResponse(.requestTimeout, "RequestTimeoutException", "the request body arrived too slowly")
        var head = answer.head
        head.headerFields[.connection] = "close"
        head.headerFields[.contentLength] = String(answer.body.count)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: answer.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

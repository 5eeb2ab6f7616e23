import HTTPTypes
package import NIOCore
package import NIOHTTPTypes

/// Cuts off a request body that arrives too slowly, as Apache's `mod_reqtimeout` does: the
/// body has `timeout` from its head's arrival, and every `minimumRate` bytes that arrive earn
/// one more second, but never more than `timeout` ahead of now: credit cannot be banked, so a
/// body sent fast and then trickled is cut off a `timeout` after the trickle starts (before,
/// its early bytes bought minutes, holding a large spool file). A large upload at a
/// reasonable speed keeps going; a client trickling a byte every few seconds is answered
/// `408 Request Timeout` (or, once the answer has begun, has its connection closed), so it
/// cannot hold a connection, or a place under `--max-connections`, for long. The time starts
/// again when a `100 Continue` goes out, and time while the server itself holds reading back
/// does not count.
///
/// Goes after the HTTP/1 decoder (Hummingbird's `additionalChannelHandlers`), one per
/// connection, on the connection's event loop only.
package final class RequestBodyPace: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let minimumRate: Int
    private var timer: Scheduled<Void>?
    /// When the body is cut off unless more of it comes.
    private var deadline = NIODeadline.now()
    /// The pipeline asked for more and has not had it yet: the client is the one waiting.
    private var readPending = false
    private var answerStarted = false

    /// A body has `timeout`, plus a second for each `minimumRate` bytes received.
    package init(timeout: TimeAmount, minimumRate: Int) {
        self.timeout = timeout
        self.minimumRate = max(1, minimumRate)
    }

    package func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    package func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head) where head.announcesBody:
            deadline = .now() + timeout
            answerStarted = false
            arm(context)
        case .body(let bytes) where timer != nil:
            let now = NIODeadline.now()
            deadline = min(now + timeout, max(deadline, now) + earned(by: bytes.readableBytes))
            arm(context)
        case .end: disarm()
        default: break
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

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data) {
            if head.status.kind != .informational {
                answerStarted = true
            } else if head.status == .continue, timer != nil {
                // The client held the body back until now (`Expect: 100-continue`).
                deadline = .now() + timeout
                arm(context)
            }
        }
        context.write(data, promise: promise)
    }

    /// The time `count` bytes earn.
    private func earned(by count: Int) -> TimeAmount { .milliseconds(Int64(count) * 1_000 / Int64(minimumRate)) }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            expired(context)
        }
    }

    private func expired(_ context: ChannelHandlerContext) {
        timer = nil
        guard readPending else {
            // The server is not reading (the upstream is slow to take the body): not the
            // client's time. Look again a full timeout later.
            deadline = .now() + timeout
            return arm(context)
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

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}

extension HTTPRequest {
    /// The head says a body follows: chunks, or a `Content-Length` above 0.
    var announcesBody: Bool {
        headerFields[.transferEncoding] != nil || (headerFields[.contentLength].flatMap { Int($0) } ?? 0) > 0
    }
}

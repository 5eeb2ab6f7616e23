import HTTPTypes
package import NIOCore
package import NIOHTTPTypes

/// Closes a connection whose next request head has not fully arrived `limit` after the
/// connection opened or the last response ended: a client trickling its headers a byte at a
/// time (slowloris) holds a connection for `limit` at most, where an idle timeout, reset by
/// every byte, would let it hold one forever. Bodies are not bounded here (an upload may be
/// slow and large); the upstream timeout bounds what follows the head.
///
/// Goes after the HTTP/1 decoder and its conversion to swift-http-types (Hummingbird's
/// `additionalChannelHandlers`), one per connection, on the connection's event loop only. The
/// proxy, the gateway and the credential endpoints each put one there.
package final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let limit: TimeAmount
    private var timer = ConnectionTimer()

    /// A deadline of `limit` for each request head.
    package init(limit: TimeAmount) {
        self.limit = limit
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        timer.stop()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        timer.stop()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { timer.clear() }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer.set(context.eventLoop.now + limit, on: context.eventLoop.assumeIsolated()) { [self] in check(context) }
    }

    private func check(_ context: ChannelHandlerContext) {
        if timer.fired(on: context.eventLoop.assumeIsolated(), check: { [self] in check(context) }) { context.close(promise: nil) }
    }
}

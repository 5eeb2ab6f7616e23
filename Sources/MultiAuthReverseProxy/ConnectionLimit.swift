import HTTPTypes
package import Logging
package import NIOCore
package import NIOHTTPTypes
import Synchronization

/// Caps the connections a server holds open at once: past the cap, a new connection is
/// answered `503 Service Unavailable` with `Connection: close` and closed, so a flood of
/// idle or slow clients cannot exhaust the process's file descriptors and memory while the
/// connections already open are served as before.
///
/// One ``Counter`` is shared by the whole server; a ``ConnectionLimit`` handler is made for
/// each connection (Hummingbird's `additionalChannelHandlers`), after the HTTP/1 codec.
package final class ConnectionLimit: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    /// The open connections of one server, and its cap.
    package final class Counter: Sendable {
        /// The most connections held open at once.
        package let limit: Int
        let open = Atomic(0)
        let refusing = Atomic(false)
        let logger: Logger

        /// A counter for a server that holds at most `limit` connections; the first refusal
        /// after a time under the cap is logged at warning level.
        package init(limit: Int, logger: Logger) {
            self.limit = limit
            self.logger = logger
        }

        func admit() -> Bool {
            let count = open.add(1, ordering: .relaxed).newValue
            guard count > limit else {
                refusing.store(false, ordering: .relaxed)
                return true
            }
            open.subtract(1, ordering: .relaxed)
            if !refusing.exchange(true, ordering: .relaxed) {
                logger.warning("connection limit reached: new connections are answered 503 until one closes", metadata: ["limit": "\(limit)"])
            }
            return false
        }

        func release() { open.subtract(1, ordering: .relaxed) }
    }

    private let counter: Counter
    private enum State { case waiting, admitted, refused }
    private var state = State.waiting

    /// A handler for one connection, counted in `counter`.
    package init(_ counter: Counter) {
        self.counter = counter
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { decide(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        if state == .waiting { decide(context) }
        context.fireChannelActive()
    }

    /// A refused connection's requests go no further.
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state != .refused else { return }
        context.fireChannelRead(data)
    }

    private func decide(_ context: ChannelHandlerContext) {
        if counter.admit() {
            // The place is given back when the connection closes; the handler leaves the
            // pipeline, so that no request or answer passes through it.
            state = .admitted
            let counter = counter
            context.channel.closeFuture.whenComplete { _ in counter.release() }
            // After the pipeline's set-up, which may be what called this.
            context.eventLoop.assumeIsolated().execute { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
        } else {
            state = .refused
            refuse(context)
        }
    }

    private func refuse(_ context: ChannelHandlerContext) {
        var fields = HTTPFields()
        fields[.connection] = "close"
        fields[.contentLength] = "0"
        fields[.retryAfter] = "1"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .serviceUnavailable, headerFields: fields))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}

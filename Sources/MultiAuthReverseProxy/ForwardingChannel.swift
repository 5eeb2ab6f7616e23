import HummingbirdCore
package import Logging
package import NIOCore
import NIOHTTP1

/// The proxy's and gateway's HTTP/1.1 connections: SwiftNIO's HTTP/1 request decoder, a
/// ``ClientHTTP1Codec`` (head rules, one conversion to swift-http-types, answers written
/// straight into bytes, a malformed request answered 400 in its turn), the `handlers` given
/// (limits, observers), and a ``ForwardingHandler`` that serves every request and ends the
/// connection for a graceful shutdown. Served by Hummingbird's `Server`
/// (a ServiceLifecycle service), plain or inside its TLS channel.
package struct ForwardingChannel: ServerChildChannel {
    /// A connection being served.
    package struct Value: ServerChildChannelValue {
        package let channel: any Channel
    }

    let forwarding: Forwarding
    let handlers: @Sendable () -> [any RemovableChannelHandler]
    /// The most bytes of request head fields, and the most fields (more is answered 431 or 400).
    let maxHeaderBytes: Int
    let maxHeaderCount: Int

    /// Connections whose requests `forwarding` serves, through `handlers` (made anew for each
    /// connection; one of them closes idle connections, as ``ExchangeGuards`` does).
    package init(
        forwarding: Forwarding, handlers: @escaping @Sendable () -> [any RemovableChannelHandler],
        maxHeaderBytes: Int = 80 << 10, maxHeaderCount: Int = 1000
    ) {
        self.forwarding = forwarding
        self.handlers = handlers
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
    }

    /// Builds the connection's pipeline.
    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = maxHeaderBytes
            limits.maxHeaderListSize = maxHeaderBytes
            limits.maxHeaderFieldCount = maxHeaderCount
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(limitConfiguration: limits)))
            try operations.addHandler(ClientHTTP1Codec())
            try operations.addHandlers(handlers())
            try operations.addHandler(ForwardingHandler(forwarding))
            return Value(channel: channel)
        }
    }

    /// Waits for the connection to close: its handlers do all the work.
    package func handle(value: Value, logger: Logger) async {
        try? await value.channel.closeFuture.get()
    }
}

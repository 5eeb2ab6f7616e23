import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel with an ``InlineForwardingHandler`` added to each
/// connection, right after Hummingbird's connection-state handler: body-less requests are
/// forwarded on the event loop, everything else reaches the responder as usual.
package struct InlineForwardingChannel: ServerChildChannel {
    package typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let http1: HTTP1Channel
    let forwarding: InlineForwarding

    /// Wraps `http1`, forwarding inline as `forwarding` decides.
    package init(_ http1: HTTP1Channel, forwarding: InlineForwarding) {
        self.http1 = http1
        self.forwarding = forwarding
    }

    /// Sets the connection up as `HTTP1Channel` does, then adds the inline handler.
    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { [forwarding] value in
            let operations = channel.pipeline.syncOperations
            let connectionState = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(InlineForwardingHandler(forwarding), position: .after(connectionState))
            return value
        }
    }

    /// Serves the requests the inline handler passes on, as `HTTP1Channel` does.
    package func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with inline forwarding (``InlineForwardingChannel``).
    package static func http1(configuration: HTTP1Channel.Configuration, inlineForwarding: InlineForwarding) -> HTTPServerBuilder {
        .init { responder in
            InlineForwardingChannel(HTTP1Channel(responder: responder, configuration: configuration), forwarding: inlineForwarding)
        }
    }
}

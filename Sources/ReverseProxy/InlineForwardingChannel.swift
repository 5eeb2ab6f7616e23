import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The proxy's and gateway's HTTP/1.1 connections, a pipeline built here from public parts:
/// SwiftNIO's HTTP/1 server codec, the conversion to swift-http-types, the `handlers` given
/// (limits, observers), Hummingbird's `HTTPConnectionStateHandler` (idle timeout, graceful
/// shutdown) and an ``InlineForwardingHandler`` that forwards on the event loop; what it
/// passes on reaches the Hummingbird `responder`.
package struct InlineForwardingChannel: ServerChildChannel {
    package typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let http1: HTTP1Channel
    let forwarding: InlineForwarding

    /// Connections whose requests `forwarding` takes, the rest served by `http1`'s responder;
    /// `http1`'s configuration gives the handlers, the idle timeout and the header limits.
    package init(_ http1: HTTP1Channel, forwarding: InlineForwarding) {
        self.http1 = http1
        self.forwarding = forwarding
    }

    /// Builds the connection's pipeline.
    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let configuration = http1.configuration
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            let operations = channel.pipeline.syncOperations
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try operations.addHandlers(configuration.additionalChannelHandlers())
            try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { .init($0) }, logger: logger))
            try operations.addHandler(InlineForwardingHandler(forwarding))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
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

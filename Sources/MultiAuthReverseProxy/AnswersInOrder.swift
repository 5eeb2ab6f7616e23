import NIOCore
import NIOHTTP1

/// Holds a decoding error that follows a complete request until that request's answer has
/// gone out. SwiftNIO's protocol error handler answers 400 at once when no answer has started,
/// so a valid request followed by garbage got the 400 before its own answer. An error in the
/// middle of a request goes on at once: that request can never be answered otherwise.
///
/// Goes right after the HTTP/1 decoder and before `HTTPServerProtocolErrorHandler`, one per
/// connection, on the connection's event loop only.
final class AnswersInOrder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var requestsEnded = 0
    private var answersEnded = 0
    private var held: (any Error)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { requestsEnded += 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, requestsEnded > answersEnded, held == nil else {
            context.fireErrorCaught(error)
            return
        }
        held = error
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        answersEnded += 1
        guard let error = held, answersEnded >= requestsEnded else {
            context.write(data, promise: promise)
            return
        }
        held = nil
        let written = context.writeAndFlush(data)
        written.cascade(to: promise)
        written.assumeIsolated().whenComplete { _ in context.fireErrorCaught(error) }
    }
}

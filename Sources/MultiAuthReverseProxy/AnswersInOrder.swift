import NIOCore
import NIOHTTP1

/// Answers a malformed request (SwiftNIO's decoder failed on it: a bad head, a framing error
/// such as `Content-Length` beside `Transfer-Encoding` or two lengths, a bad chunk) with 400
/// and `Connection: close`, and closes the connection once that answer is out; the decoder
/// reads nothing after the error, so the connection could serve nothing more.
///
/// The 400 comes in its turn: an error that follows complete requests waits until their
/// answers have gone out. An error in the middle of a request (a bad chunk, the client
/// closing before its body ended) is that request's: a ``BrokenRequest`` goes to the
/// ``ForwardingHandler``, which answers the exchange it has under way and closes after.
/// After an answer that says `Connection: close`, no 400 follows: the client reads no answer
/// after that one.
///
/// Goes right after the HTTP/1 decoder, one per connection, on the connection's event loop
/// only; it takes the place of SwiftNIO's `HTTPServerProtocolErrorHandler`, which answered at
/// once and left the connection open.
final class AnswersInOrder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var requestsEnded = 0
    /// A request's head has come and its end has not.
    private var inRequest = false
    private var answersEnded = 0
    /// An answer has begun and not ended.
    private var answering = false
    /// An answer said `Connection: close`, or the 400 went out: nothing more is written.
    private var finished = false
    private var held: (any Error)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: inRequest = true
        case .body: break
        case .end:
            inRequest = false
            requestsEnded += 1
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard held == nil, !finished else { return }
        if inRequest {
            finished = true
            context.fireUserInboundEventTriggered(BrokenRequest())
            return context.fireErrorCaught(error)
        }
        if requestsEnded > answersEnded {
            held = error
        } else {
            refuse(context, error)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            answering = true
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { finished = true }
        case .end:
            answering = false
            answersEnded += 1
            if let error = held, answersEnded >= requestsEnded {
                held = nil
                context.write(data, promise: promise)
                return refuse(context, error)
            }
        default: break
        }
        context.write(data, promise: promise)
    }

    /// The 400 and the close, or only the close while an answer is under way or after one
    /// that said `Connection: close`.
    private func refuse(_ context: ChannelHandlerContext, _ error: any Error) {
        let answer = !finished && !answering
        finished = true
        if answer {
            let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.flush()
            context.close(promise: nil)
        }
        context.fireErrorCaught(error)
    }
}

/// The request under way can never end: the decoder failed in its middle. Its exchange is
/// answered (a refusal when its body was still wanted) and the connection closed after.
struct BrokenRequest: Sendable {}

import HTTPTypes
import MultiAuthNIOBodies
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The client connection's HTTP/1.1 past SwiftNIO's request decoder (llhttp, which keeps
/// every framing rule: one `Content-Length`, never beside `Transfer-Encoding`, well-formed
/// chunks), in one handler so that each request part and answer part crosses one handler,
/// not five:
/// - each request head is checked by ``RequestHeadRules`` and converted once to
///   swift-http-types (``HTTP1Conversions``); a head that breaks a rule is not passed on: a
///   ``RefusedHead`` goes in its place, which the ``ForwardingHandler`` answers 400 in its
///   turn, and nothing the connection sends after it is read;
/// - each answer is written straight into bytes, framed as SwiftNIO's encoder frames it
///   (``ResponseFraming``), with no body for `HEAD` and `CONNECT`;
/// - a malformed request (the decoder failed on it: a bad head, two lengths, a bad chunk) is
///   answered 400 with `Connection: close` in its turn: after the answers owed to the complete
///   requests before it, never after an answer that said `Connection: close`. An error in the
///   middle of a request is that request's: a ``BrokenRequest`` goes to the
///   ``ForwardingHandler``, which answers the exchange under way and closes after.
///
/// One per connection, on its event loop only; it takes the place of SwiftNIO's response
/// encoder, its protocol error handler and swift-nio-extras' conversion handler.
final class ClientHTTP1Codec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = IOData

    /// A head was refused: the rest of the connection's input is dropped.
    private var refused = false
    private var requestsEnded = 0
    /// A request's head has come and its end has not.
    private var inRequest = false
    private var answersEnded = 0
    /// An answer has begun and not ended.
    private var answering = false
    /// An answer said `Connection: close`, or the 400 went out: nothing more is written.
    private var finished = false
    /// A decoding error waiting for the answers owed before it.
    private var heldError: (any Error)?
    /// The methods of the requests not yet answered, oldest first.
    private var methods: [HTTPMethod] = []
    /// The framing of the answer being written, and whether its body is left out (`HEAD`).
    private var framing = ResponseFraming.none
    private var suppressesBody = false
    /// An answer's head, and the start of its body, not yet handed to the socket: a small
    /// answer goes out as one buffer (one write of one piece) when it ends or is flushed.
    private var gathered = GatheredWrites()

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            inRequest = true
            methods.append(head.method)
        case .body: break
        case .end:
            inRequest = false
            requestsEnded += 1
        }
        guard !refused else { return }
        switch part {
        case .head(var head):
            if let problem = RequestHeadRules.problem(head) { return refuse(problem, context) }
            // SwiftNIO's decoder reads nothing after an upgrade request, waiting for an upgrader
            // that is not there: the answer ends the connection instead of leaving it stalled.
            if RequestHeadRules.asksUpgrade(head) { head.headers.replaceOrAdd(name: "Connection", value: "close") }
            guard let request = HTTP1Conversions.request(head) else { return refuse("the request method is not a token", context) }
            context.fireChannelRead(wrapInboundOut(.head(request)))
        case .body(let bytes): context.fireChannelRead(wrapInboundOut(.body(bytes)))
        case .end(let trailers): context.fireChannelRead(wrapInboundOut(.end(trailers.map { HTTPFields(http1: $0) })))
        }
    }

    private func refuse(_ problem: String, _ context: ChannelHandlerContext) {
        refused = true
        context.fireUserInboundEventTriggered(RefusedHead(problem: problem))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard heldError == nil, !finished else { return }
        if inRequest {
            finished = true
            context.fireUserInboundEventTriggered(BrokenRequest())
            return context.fireErrorCaught(error)
        }
        if requestsEnded > answersEnded {
            heldError = error
        } else {
            answerMalformed(context, error)
        }
    }

    // MARK: Answers

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head): writeHead(head, context: context, promise: promise)
        case .body(let bytes):
            guard !suppressesBody, bytes.readableBytes > 0 else { return gathered.complete(promise, context: context) }
            let piece = framing == .chunked ? ByteBuffer.chunk(bytes, allocator: context.channel.allocator) : bytes
            gathered.send(piece, context: context, promise: promise)
        case .end:
            answering = false
            answersEnded += 1
            if framing == .chunked, !suppressesBody {
                gathered.send(ByteBuffer(staticString: "0\r\n\r\n"), context: context, promise: promise)
            } else {
                gathered.complete(promise, context: context)
            }
            if let error = heldError, answersEnded >= requestsEnded {
                heldError = nil
                answerMalformed(context, error)
            }
        }
    }

    func flush(context: ChannelHandlerContext) {
        gathered.sendPending(context)
        context.flush()
    }

    private func writeHead(_ head: HTTPResponse, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var method: HTTPMethod?
        if head.status.kind != .informational {
            answering = true
            if ExchangeGuards.saysClose(head.headerFields) { finished = true }
            method = methods.isEmpty ? nil : methods.removeFirst()
            suppressesBody = method == .HEAD || method == .CONNECT
        }
        let framing = ResponseFraming(head, answering: method)
        var buffer = context.channel.allocator.buffer(capacity: 2048)
        buffer.writeResponseHead(head, framing: framing)
        guard head.status.kind != .informational else {
            gathered.sendPending(context)
            return context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        }
        self.framing = framing
        gathered.start(buffer, context: context, promise: promise)
    }

    /// The 400 for a malformed request and the close, or only the close while an answer is
    /// under way or after one that said `Connection: close`.
    private func answerMalformed(_ context: ChannelHandlerContext, _ error: any Error) {
        let answer = !finished && !answering
        finished = true
        gathered.sendPending(context)
        if answer {
            let bytes = ByteBuffer(staticString: "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(bytes))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.flush()
            context.close(promise: nil)
        }
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension ClientHTTP1Codec: Sendable {}

/// A request head ``ClientHTTP1Codec`` refused, in the place of that head: answered 400 with
/// `problem` once the requests before it are, and the connection closed after.
struct RefusedHead: Sendable {
    let problem: String
}

/// The request under way can never end: the decoder failed in its middle. Its exchange is
/// answered (a refusal when its body was still wanted) and the connection closed after.
struct BrokenRequest: Sendable {}

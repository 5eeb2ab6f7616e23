import HTTPTypes
import HummingbirdCore
import Logging
import MultiAuthCore
import MultiAuthServerGuards
import NIOCore
import NIOHTTPTypes
import Tracing

/// One client connection's exchanges (``Forwarding``), one at a time.
///
/// The last handler of the connection's pipeline. It also ends the connection for a
/// graceful shutdown (Hummingbird's quiesce event) once what it received is answered; an idle
/// connection is closed by the head deadline (``ExchangeGuards``). Responses go out in request order: while an exchange runs, the
/// parts of requests pipelined behind it are held (and reading paused), then replayed. Each
/// exchange is a server span (swift-distributed-tracing; a no-op until a tracer is bootstrapped)
/// whose parent is the client's W3C `traceparent`.
final class ForwardingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The exchange under way: a class, so the handler's many looks at it copy nothing.
    private final class Exchange {
        let number: Int
        let head: HTTPRequest
        let route: Forwarding.Route?
        /// Nil while no tracer is bootstrapped.
        let span: (any Span)?
        /// The connection closes after this response: the client asked, or the answer came
        /// before the request's body had been read.
        var closesConnection: Bool
        var isHead: Bool { head.method == .head }
        var requestEnded = false
        var sent = false
        var responseStarted = false
        var responseEnded = false
        /// The request as sent, while it may still be sent again: once, when a reused
        /// connection turns out closed before any of the response came.
        var request: HTTPRequest?
        var onReusedConnection = false
        /// What looks at a rejection before the client sees it, and the rejection held for it.
        var rejectionCheck: Forwarding.RejectionCheck?
        var heldRejection: (head: HTTPResponse, body: ByteBuffer)?
        /// The request's body on its way to the decision, and what the decision sends upstream.
        var body: InboundBodyStream?
        /// A small body gathered whole for ``Forwarding/Route/decideWithBytes`` (nil when the
        /// body streams to the decision, or when an answer came first).
        var heldBody: [UInt8]?
        var upstreamBody = UpstreamBody.none
        /// Where the request went (the route's upstream unless the decision named another).
        var upstream: Forwarding.Upstream?
        /// Fields the decision sets on the upstream's response.
        var responseFields = HTTPFields()

        init(number: Int, head: HTTPRequest, route: Forwarding.Route?, tracer: (any Tracer)?) {
            self.number = number
            self.head = head
            self.route = route
            closesConnection = ExchangeGuards.saysClose(head.headerFields)
            guard let tracer else {
                span = nil
                return
            }
            var parent = ServiceContext.topLevel
            tracer.extract(head.headerFields, into: &parent, using: HTTPFieldsCarrier())
            let span = tracer.startAnySpan("HTTP \(head.method.rawValue)", context: parent, ofKind: .server)
            span.attributes["http.request.method"] = head.method.rawValue
            self.span = span
        }
    }

    private let forwarding: Forwarding
    private var context: ChannelHandlerContext?
    private var exchange: Exchange?
    private var exchangesStarted = 0
    private var connection: ClientConnection?
    /// What came of requests pipelined behind an exchange, and a read held meanwhile.
    private var heldParts: [Held] = []
    private var heldRead = false
    /// The client closed its sending side: the connection ends once what it sent is answered.
    private var inputClosed = false
    /// The server is shutting down: the connection ends once what it received is answered.
    private var quiescing = false
    /// An answer that ends the connection has gone out: nothing more is read or answered.
    private var closing = false
    private let upstream: UpstreamLink
    /// The upstream timeout of the exchange sent.
    private var upstreamDeadline = ConnectionTimer()
    /// The process's tracer, read once per connection (it is bootstrapped before serving);
    /// nil for the no-op tracer, so that an untraced exchange makes no span at all.
    private let tracer: (any Tracer)? = InstrumentationSystem.tracer is NoOpTracer ? nil : InstrumentationSystem.tracer

    init(_ forwarding: Forwarding) {
        self.forwarding = forwarding
        upstream = UpstreamLink(connectTimeout: forwarding.timeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endEverything()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        endEverything()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // A slow client slows the upstream's response down instead of filling memory.
        upstream.setReading(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        take(unwrapInboundIn(data), context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { return quiesce(context) }
        if let refused = event as? RefusedHead { return refuse(refused) }
        if event is BrokenRequest { return bodyCannotEnd("the request is malformed in its middle (its framing or a chunk)") }
        guard let event = event as? ChannelEvent, event == .inputClosed else { return context.fireUserInboundEventTriggered(event) }
        inputClosed = true
        if exchange == nil, heldParts.isEmpty { return context.close(promise: nil) }
        bodyCannotEnd("the client closed its sending side before the body ended")
    }

    /// The rest of the body being read can no longer come: a decision waiting for it fails,
    /// one waiting for it whole is answered here, and the connection ends after the answer.
    private func bodyCannotEnd(_ reason: String) {
        guard let exchange, !exchange.requestEnded else { return }
        exchange.closesConnection = true
        exchange.body?.fail(ChannelError.inputClosed)
        if exchange.heldBody != nil {
            exchange.heldBody = nil
            let refusal = UpstreamForwarder.bodyRefusal(.unreadable(body: "the received body", reason: reason), logger: forwarding.logger)
            carry(.answer(refusal.head, body: refusal.body))
        }
    }

    /// The server is shutting down gracefully: an idle connection closes now, a busy one once
    /// what it received is answered (an answer not yet begun says `Connection: close`).
    private func quiesce(_ context: ChannelHandlerContext) {
        quiescing = true
        guard let exchange else { return context.close(promise: nil) }
        if !exchange.responseStarted { exchange.closesConnection = true }
    }

    /// Reading goes on while an exchange runs until a part of a request pipelined behind it
    /// arrives (or its body's reader pauses): a connection read from again at once costs the
    /// event loop no change of what it waits for, and what a read brings is at most held.
    func read(context: ChannelHandlerContext) {
        if readsNow { context.read() } else { heldRead = true }
    }

    private var readsNow: Bool { exchange == nil || (heldParts.isEmpty && exchange?.body?.paused != true) }

    /// Passes on a read held back, once reading may go on.
    private func releaseHeldRead() {
        guard heldRead, readsNow, let context else { return }
        heldRead = false
        context.read()
    }

    /// The decision wants more of the request's body.
    func bodyWanted() {
        guard let body = exchange?.body else { return }
        body.resume()
        releaseHeldRead()
    }

    // MARK: Requests

    /// A part of a request pipelined behind the exchange under way, or a head refused there.
    private enum Held {
        case part(HTTPRequestPart)
        case refused(RefusedHead)
    }

    /// A head refused before its conversion: answered 400 in its turn, then the connection
    /// ends (nothing after it is read).
    private func refuse(_ refused: RefusedHead) {
        guard !closing else { return }
        guard exchange == nil else { return heldParts.append(.refused(refused)) }
        exchangesStarted += 1
        let current = Exchange(number: exchangesStarted, head: Self.refusedHead, route: nil, tracer: nil)
        current.requestEnded = true
        current.closesConnection = true
        exchange = current
        let answer = UpstreamForwarder.errorResponse(.badRequest, "BadRequestException", refused.problem)
        carry(.answer(answer.head, body: answer.body))
    }

    /// What a refused head is answered as: its own could not be read.
    private static let refusedHead = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        // What a client sends after an answer that closes the connection (the rest of a body
        // that was never wanted, requests pipelined behind it) gets no answer.
        guard !closing else { return }
        if let exchange {
            if exchange.requestEnded {
                heldParts.append(.part(part))
            } else if case .body(let bytes) = part {
                exchange.body?.take(bytes)
                exchange.heldBody?.append(contentsOf: bytes.readableBytesView)
            } else if case .end = part {
                exchange.requestEnded = true
                exchange.body?.end()
                if let held = exchange.heldBody, let route = exchange.route {
                    exchange.heldBody = nil
                    carry(route.decideWithBytes(exchange.head, client(context), held))
                }
                finishIfDone()
            }
            return
        }
        // Between exchanges only a head can come: the decoder ends each request before the next.
        guard case .head(let head) = part else { return }
        exchangesStarted += 1
        let route = forwarding.route(for: head)
        exchange = Exchange(number: exchangesStarted, head: head, route: route, tracer: tracer)
        let refusal = UpstreamForwarder.refusal(of: head).map { Forwarding.Decision.answer($0.head, body: $0.body) }
        guard let route else {
            return carry(refusal ?? Forwarding.answer(.misdirectedRequest, "MisdirectedRequestException", "No route for this host"))
        }
        if Forwarding.decidesAtOnce(head) { return carry(refusal ?? route.decide(head, client(context))) }
        if let length = route.heldBodyLength(head) {
            // Decided once the body is in; a refusal now leaves the body to be read and dropped.
            if let refusal { return carry(refusal) }
            exchange?.heldBody = []
            exchange?.heldBody?.reserveCapacity(length)
            return
        }
        let body = InboundBodyStream(loop: context.eventLoop, handler: self)
        exchange?.body = body
        let inbound = InboundBody(request: Request(head: head, body: body.body), channel: context.channel)
        let client = client(context)
        carry(refusal ?? .later { await route.decideWithBody(head, client, inbound) })
    }

    /// The connection's client, read at its first request (after any TLS handshake).
    private func client(_ context: ChannelHandlerContext) -> ClientConnection {
        if let connection { return connection }
        let read = ClientConnection(context.channel)
        connection = read
        return read
    }

    private func carry(_ decision: Forwarding.Decision) {
        guard let context, let current = exchange?.number else { return }
        switch decision {
        case .forward(let request, let body, let check, let upstream, let responseFields):
            send(request, body: body, rejectionCheck: check, upstream: upstream, responseFields: responseFields)
        case .answer(let head, let body): answer(head, body: body)
        case .later(let work):
            let promise = context.eventLoop.makePromise(of: Forwarding.Decision.self)
            promise.completeWithTask { await work() }
            promise.futureResult.assumeIsolated().whenSuccess { [self] decision in
                if exchange?.number == current { carry(decision) }
            }
        }
    }

    /// Writes a whole response of our own.
    private func answer(_ head: HTTPResponse, body: [UInt8]) {
        // A body not read whole is left on the connection: it ends with this answer.
        if self.exchange?.body != nil, self.exchange?.requestEnded == false { self.exchange?.closesConnection = true }
        guard let context, let exchange else { return }
        var head = head
        head.headerFields[.contentLength] = String(body.count)
        writeHead(head)
        if !body.isEmpty, !exchange.isHead { context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil) }
        writeEnd()
    }

    private func writeHead(_ head: HTTPResponse) {
        guard let context, let exchange else { return }
        var head = head
        if exchange.closesConnection { head.headerFields[.connection] = "close" }
        self.exchange?.responseStarted = true
        exchange.span?.attributes["http.response.status_code"] = Int(head.status.code)
        forwarding.logger.debug(
            "request answered",
            metadata: ["request": "\(exchange.head.method) \(Redaction.target(exchange.head.path ?? "/"))", "status": "\(head.status.code)"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Ends the response, and the connection when the client asked for that.
    private func writeEnd() {
        guard let context, let exchange else { return }
        self.exchange?.responseEnded = true
        if exchange.closesConnection {
            closing = true
            heldParts = []
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        finishIfDone()
    }

    private func send(
        _ request: HTTPRequest, body: UpstreamBody, rejectionCheck: Forwarding.RejectionCheck?, upstream named: Forwarding.Upstream? = nil,
        responseFields: HTTPFields = HTTPFields()
    ) {
        guard let context, let target = named ?? exchange?.route?.upstream else { return }
        exchange?.upstream = target
        exchange?.responseFields = responseFields
        var request = request
        if case .empty = body.body, Self.bodyExpected.contains(request.method) { request.headerFields[.contentLength] = "0" }
        exchange?.upstreamBody = body
        exchange?.sent = true
        exchange?.rejectionCheck = rejectionCheck
        upstreamDeadline.set(context.eventLoop.now + forwarding.timeout, on: context.eventLoop.assumeIsolated()) { [self] in checkUpstreamDeadline() }
        if let span = exchange?.span { tracer?.inject(span.context, into: &request.headerFields, using: HTTPFieldsCarrier()) }
        exchange?.request = request
        exchange?.onReusedConnection = upstream.send(request, body: body.body, to: target, on: context.eventLoop, owner: self)
    }

    /// Ends the exchange once both its request and its response have, and goes on with what
    /// was held behind it.
    private func finishIfDone() {
        guard let current = exchange, current.requestEnded, current.responseEnded else { return }
        upstreamDeadline.clear()
        current.upstreamBody.spool?.remove()
        current.span?.end()
        exchange = nil
        guard let context else { return }
        let held = heldParts
        heldParts = []
        for item in held {
            switch item {
            case .part(let part): take(part, context: context)
            case .refused(let refused): refuse(refused)
            }
        }
        if !held.isEmpty { context.fireChannelReadComplete() }
        releaseHeldRead()
        if inputClosed || quiescing, exchange == nil { context.close(promise: nil) }
    }

    private func endEverything() {
        exchange?.span?.end()
        upstreamDeadline.stop()
        exchange?.body?.fail(ChannelError.ioOnClosedChannel)
        exchange?.upstreamBody.spool?.remove()
        exchange = nil
        heldParts = []
        upstream.close()
    }

    /// Methods whose body-less requests say so with `Content-Length: 0` (RFC 9110 section 8.6).
    private static let bodyExpected: Set<HTTPRequest.Method> = [.post, .put, .patch]

    /// The methods RFC 9110 (section 9.2.2) allows a client to send again on its own.
    private static let idempotent: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]

    // MARK: The upstream's side (called by the upstream connection, on this event loop)

    func upstreamConnectFailed(_ error: any Error) {
        forwarding.logger.warning("upstream failed", metadata: ["error": "\(error)"])
        failExchange(timedOut: false)
    }

    func upstreamRead(_ part: HTTPResponsePart) {
        guard let context, let current = exchange, current.sent, !current.responseEnded else { return }
        switch part {
        case .head(let head):
            guard head.status.kind != .informational else { return }
            var relayed = HTTPResponse(status: head.status, headerFields: UpstreamForwarder.forwardedFields(head.headerFields))
            for field in current.responseFields { relayed.headerFields[field.name] = field.value }
            if current.rejectionCheck != nil, Forwarding.checkedStatuses.contains(head.status.code) {
                exchange?.heldRejection = (relayed, ByteBuffer())
            } else {
                writeHead(relayed)
            }
        case .body(var bytes):
            if current.heldRejection != nil {
                exchange?.heldRejection?.body.writeBuffer(&bytes)
                if let held = exchange?.heldRejection, held.body.readableBytes > Forwarding.checkedBodyLimit {
                    exchange?.heldRejection = nil
                    exchange?.rejectionCheck = nil
                    relay(held)
                }
            } else if !current.isHead {
                context.write(wrapOutboundOut(.body(bytes)), promise: nil)
            }
        case .end:
            if let held = current.heldRejection {
                let check = current.rejectionCheck
                current.heldRejection = nil
                current.rejectionCheck = nil
                if let retry = check?(held.head, Array(held.body.readableBytesView)) {
                    exchange?.sent = false
                    carry(retry)
                    return
                }
                relay(held)
            }
            writeEnd()
        }
    }

    /// Passes on a rejection that was held for its check (too large to hold, or not the kind
    /// the check acts on); what follows of it is relayed as it arrives.
    private func relay(_ held: (head: HTTPResponse, body: ByteBuffer)) {
        guard let context, let exchange else { return }
        writeHead(held.head)
        if !exchange.isHead, held.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(held.body)), promise: nil) }
    }

    func upstreamReadComplete() {
        if exchange?.responseStarted == true { context?.flush() }
    }

    /// The upstream connection closed: an exchange waiting on it fails.
    func upstreamClosed() {
        guard let context, let current = exchange, current.sent, !current.responseEnded else { return }
        if current.onReusedConnection, !current.responseStarted, let request = current.request, let route = current.upstream,
            Self.idempotent.contains(request.method),
            current.upstreamBody.body.isReplayable {
            // The upstream closed a kept-alive connection as the request went out (its idle
            // timeout, most likely): an idempotent request goes once more, on a new connection.
            exchange?.request = nil
            exchange?.onReusedConnection = upstream.send(request, body: current.upstreamBody.body, to: route, on: context.eventLoop, owner: self)
            return
        }
        forwarding.logger.warning("upstream failed", metadata: ["error": "the upstream closed the connection before the response ended"])
        failExchange(timedOut: false)
    }

    private func checkUpstreamDeadline() {
        guard let context, upstreamDeadline.fired(on: context.eventLoop.assumeIsolated(), check: { [self] in checkUpstreamDeadline() }) else { return }
        upstreamTimedOut()
    }

    private func upstreamTimedOut() {
        forwarding.logger.warning("upstream failed", metadata: ["error": "no complete response within the upstream timeout"])
        failExchange(timedOut: true)
    }

    /// Before the response has started, the client gets 502 (504 for a timeout); after, its
    /// connection is closed, which it sees as a short response. The upstream connection is
    /// dropped either way, so no late response is taken for a later request.
    private func failExchange(timedOut: Bool) {
        upstream.close()
        guard let context, let current = exchange else { return }
        guard !current.responseStarted else {
            context.close(promise: nil)
            return
        }
        exchange?.sent = false
        if timedOut {
            carry(Forwarding.answer(.gatewayTimeout, "IntegrationTimeout", "Endpoint request timed out"))
        } else {
            carry(Forwarding.answer(.badGateway, "BadGatewayException", "Bad Gateway"))
        }
    }
}

@available(*, unavailable)
extension ForwardingHandler: Sendable {}

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
/// The last handler of the connection's pipeline. Where the connection is (an exchange's
/// request and answer, what is held behind it, whether it closes) is an
/// ``ExchangeStateMachine``; this handler does what its transitions ask. It also ends the
/// connection for a graceful shutdown (Hummingbird's quiesce event) once what it received is
/// answered; an idle connection is closed by the head deadline (``ExchangeGuards``). Responses
/// go out in request order: while an exchange runs, the parts of requests pipelined behind it
/// are held (and reading paused), then replayed. Each exchange is a server span
/// (swift-distributed-tracing; a no-op until a tracer is bootstrapped) whose parent is the
/// client's W3C `traceparent`.
final class ForwardingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the exchange under way works with (its state is the machine's): a class, so the
    /// handler's many looks at it copy nothing.
    private final class Exchange {
        let number: Int
        let head: HTTPRequest
        let route: Forwarding.Route?
        /// Nil while no tracer is bootstrapped.
        let span: (any Span)?
        var isHead: Bool { head.method == .head }
        /// The request as sent upstream, for sending it once more (``ExchangeStateMachine/resendsAfterUpstreamClosed()``).
        var request: HTTPRequest?
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
        /// The upstream answers with an event stream (`text/event-stream`): the upstream
        /// timeout then bounds each silence, not the whole answer.
        var streamsEvents = false

        init(number: Int, head: HTTPRequest, route: Forwarding.Route?, tracer: (any Tracer)?) {
            self.number = number
            self.head = head
            self.route = route
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
    private var machine = ExchangeStateMachine()
    /// What the exchange under way works with; nil between exchanges.
    private var exchange: Exchange?
    private var connection: ClientConnection?
    /// A read held while requests are held behind an exchange.
    private var heldRead = false
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
        if event is ChannelShouldQuiesceEvent { return perform(machine.quiesce(), context: context) }
        if let refused = event as? RefusedHead { return perform(machine.refused(refused.problem), context: context) }
        if event is BrokenRequest { return perform(machine.requestBroke(), context: context) }
        guard let event = event as? ChannelEvent, event == .inputClosed else { return context.fireUserInboundEventTriggered(event) }
        perform(machine.inputClosed(), context: context)
    }

    /// Does what a transition of the machine asks.
    private func perform(_ action: ExchangeStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .none: break
        case .close: context.close(promise: nil)
        case .start(let number, let head): start(number, head, context: context)
        case .deliver(let bytes):
            exchange?.body?.take(bytes)
            exchange?.heldBody?.append(contentsOf: bytes.readableBytesView)
        case .endRequest:
            exchange?.body?.end()
            if let exchange, let held = exchange.heldBody, let route = exchange.route {
                exchange.heldBody = nil
                carry(route.decideWithBytes(exchange.head, client(context), held))
            }
            finishIfDone()
        case .answerRefusal(let problem):
            exchange = Exchange(number: machine.current ?? 0, head: Self.refusedHead, route: nil, tracer: nil)
            let answer = UpstreamForwarder.errorResponse(.badRequest, "BadRequestException", problem)
            carry(.answer(answer.head, body: answer.body))
        case .failBody(let reason):
            // A decision waiting for the body fails; one waiting for it whole is answered here.
            exchange?.body?.fail(ChannelError.inputClosed)
            if let exchange, exchange.heldBody != nil {
                exchange.heldBody = nil
                let refusal = UpstreamForwarder.bodyRefusal(.unreadable(body: "the received body", reason: reason), logger: forwarding.logger)
                carry(.answer(refusal.head, body: refusal.body))
            }
        }
    }

    /// Reading goes on while an exchange runs until a part of a request pipelined behind it
    /// arrives (or its body's reader pauses): a connection read from again at once costs the
    /// event loop no change of what it waits for, and what a read brings is at most held.
    func read(context: ChannelHandlerContext) {
        if readsNow { context.read() } else { heldRead = true }
    }

    private var readsNow: Bool { machine.readsNow(bodyPaused: exchange?.body?.paused == true) }

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

    /// What a refused head is answered as: its own could not be read.
    private static let refusedHead = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        perform(machine.received(part), context: context)
    }

    /// A new exchange: its route, then its decision (at once, once the body is in, or as the
    /// body streams to it).
    private func start(_ number: Int, _ head: HTTPRequest, context: ChannelHandlerContext) {
        let route = forwarding.route(for: head)
        exchange = Exchange(number: number, head: head, route: route, tracer: tracer)
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
        guard let context, let current = machine.current else { return }
        switch decision {
        case .forward(let request, let body, let check, let upstream, let responseFields):
            send(request, body: body, rejectionCheck: check, upstream: upstream, responseFields: responseFields)
        case .answer(let head, let body): answer(head, body: body)
        case .later(let work):
            let promise = context.eventLoop.makePromise(of: Forwarding.Decision.self)
            promise.completeWithTask { await work() }
            promise.futureResult.assumeIsolated().whenSuccess { [self] decision in
                if machine.current == current { carry(decision) }
            }
        }
    }

    /// Writes a whole response of our own.
    private func answer(_ head: HTTPResponse, body: [UInt8]) {
        guard let context, let exchange else { return }
        var head = head
        head.headerFields[.contentLength] = String(body.count)
        // A streamed body not read whole is left on the connection: it ends with this answer.
        writeHead(head, relayed: false, leavesBodyUnread: exchange.body != nil)
        if !body.isEmpty, !exchange.isHead { context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil) }
        writeEnd()
    }

    private func writeHead(_ head: HTTPResponse, relayed: Bool, leavesBodyUnread: Bool = false) {
        guard let context, let exchange else { return }
        var head = head
        if machine.answerStarts(relayed: relayed, leavesBodyUnread: leavesBodyUnread) { head.headerFields[.connection] = "close" }
        exchange.span?.attributes["http.response.status_code"] = Int(head.status.code)
        forwarding.logger.debug(
            "request answered",
            metadata: ["request": "\(exchange.head.method) \(Redaction.target(exchange.head.path ?? "/"))", "status": "\(head.status.code)"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Ends the response, and the connection when the client asked for that.
    private func writeEnd() {
        guard let context, exchange != nil else { return }
        if machine.answerEnds() {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            finishIfDone()
        }
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
        exchange?.rejectionCheck = rejectionCheck
        extendUpstreamDeadline(context)
        if let span = exchange?.span { tracer?.inject(span.context, into: &request.headerFields, using: HTTPFieldsCarrier()) }
        exchange?.request = request
        machine.sentUpstream(reused: upstream.send(request, body: body.body, to: target, on: context.eventLoop, owner: self))
    }

    /// Ends the exchange once both its request and its response have, and goes on with what
    /// was held behind it.
    private func finishIfDone() {
        guard let held = machine.finishIfDone() else { return }
        upstreamDeadline.clear()
        exchange?.upstreamBody.spool?.remove()
        exchange?.span?.end()
        exchange = nil
        guard let context else { return }
        for item in held {
            switch item {
            case .part(let part): perform(machine.received(part), context: context)
            case .refused(let problem): perform(machine.refused(problem), context: context)
            }
        }
        if !held.isEmpty { context.fireChannelReadComplete() }
        releaseHeldRead()
        if machine.closesWhenIdle { context.close(promise: nil) }
    }

    private func endEverything() {
        exchange?.span?.end()
        upstreamDeadline.stop()
        exchange?.body?.fail(ChannelError.ioOnClosedChannel)
        exchange?.upstreamBody.spool?.remove()
        exchange = nil
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
        guard let context, let current = exchange, machine.awaitsUpstream else { return }
        switch part {
        case .head(let head):
            guard head.status.kind != .informational else { return }
            var relayed = HTTPResponse(status: head.status, headerFields: UpstreamForwarder.forwardedFields(head.headerFields))
            for field in current.responseFields { relayed.headerFields[field.name] = field.value }
            if current.rejectionCheck != nil, Forwarding.checkedStatuses.contains(head.status.code) {
                exchange?.heldRejection = (relayed, ByteBuffer())
            } else {
                writeHead(relayed, relayed: true)
            }
            if Forwarding.announcesEventStream(head.headerFields) {
                current.streamsEvents = true
                extendUpstreamDeadline(context)
            }
        case .body(var bytes):
            if current.streamsEvents { extendUpstreamDeadline(context) }
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
                    machine.decidingAgain()
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
        writeHead(held.head, relayed: true)
        if !exchange.isHead, held.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(held.body)), promise: nil) }
    }

    func upstreamReadComplete() {
        if machine.answerStarted { context?.flush() }
    }

    /// The upstream connection closed: an exchange waiting on it fails.
    func upstreamClosed() {
        guard let context, let current = exchange, machine.awaitsUpstream else { return }
        if let request = current.request, let route = current.upstream, Self.idempotent.contains(request.method),
            current.upstreamBody.body.isReplayable, machine.resendsAfterUpstreamClosed() {
            // The upstream closed a kept-alive connection as the request went out (its idle
            // timeout, most likely): an idempotent request goes once more, on a new connection.
            _ = upstream.send(request, body: current.upstreamBody.body, to: route, on: context.eventLoop, owner: self)
            return
        }
        forwarding.logger.warning("upstream failed", metadata: ["error": "the upstream closed the connection before the response ended"])
        failExchange(timedOut: false)
    }

    /// An event stream (an MCP server's, a model's tokens) may last as long as events keep
    /// coming: each one gives the upstream another timeout.
    private func extendUpstreamDeadline(_ context: ChannelHandlerContext) {
        upstreamDeadline.set(context.eventLoop.now + forwarding.timeout, on: context.eventLoop.assumeIsolated()) { [self] in checkUpstreamDeadline() }
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
        guard let context, exchange != nil else { return }
        guard !machine.answerStarted else {
            context.close(promise: nil)
            return
        }
        machine.decidingAgain()
        if timedOut {
            carry(Forwarding.answer(.gatewayTimeout, "IntegrationTimeout", "Endpoint request timed out"))
        } else {
            carry(Forwarding.answer(.badGateway, "BadGatewayException", "Bad Gateway"))
        }
    }
}

@available(*, unavailable)
extension ForwardingHandler: Sendable {}

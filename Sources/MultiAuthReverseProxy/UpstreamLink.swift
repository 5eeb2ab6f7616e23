import HTTPTypes
import MultiAuthCore
import MultiAuthNIOBodies
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix

/// The upstream connection an ``ForwardingHandler`` holds for its client connection
/// (over TLS for an https upstream): opened on its first request, on the same event
/// loop, kept open and reused while both sides keep it, opened again when the upstream closes
/// it. One request at a time, as the client connection's exchanges are one at a time. A
/// request's body is sent as the decision gave it: held bytes at once, a file or stream read
/// off the event loop a chunk at a time, each written before the next is read.
final class UpstreamLink {
    private enum State {
        case closed
        case connecting(HTTPRequest, OutgoingBody)
        case open(UpstreamExchangeHandler)
    }

    private var state = State.closed
    /// The upstream the connection goes to (a request routed elsewhere opens a new one).
    private var host = ""
    private var port = 0
    private let connectTimeout: TimeAmount

    init(connectTimeout: TimeAmount) {
        self.connectTimeout = connectTimeout
    }

    /// Sends `request` with `body` on the open connection, or on a new one; the response
    /// parts go to `owner`. Returns true when an already open connection was used (which the
    /// upstream may have closed meanwhile: a request lost that way can be sent again).
    @discardableResult
    func send(
        _ request: HTTPRequest, body: OutgoingBody, to route: Forwarding.Upstream, on loop: any EventLoop, owner: ForwardingHandler
    ) -> Bool {
        if case .open(let handler) = state, handler.isReusable, route.host == host, route.port == port {
            handler.owner = owner
            handler.send(request, body: body)
            return true
        }
        close()
        state = .connecting(request, body)
        (host, port) = (route.host, route.port)
        let tls = route.tls
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [host] channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    // A failed handshake closes the connection: the exchange then fails (502).
                    if let tls { try operations.addHandler(try tls.handler(for: host)) }
                    // Header values come from swift-http-types, which never holds a CR, LF or NUL
                    // in one: NIO's check of every outgoing field would find nothing.
                    try operations.addHandler(UpstreamRequestEncoder())
                    try operations.addHandler(ByteToMessageHandler(UpstreamResponseDecoder()))
                    try operations.addHandler(UpstreamExchangeHandler())
                }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { [self, weak owner] result in
                connected(result, owner: owner)
            }
        return false
    }

    private func connected(_ result: Result<any Channel, any Error>, owner: ForwardingHandler?) {
        guard case .connecting(let pending, let body) = state, let owner else {
            if case .success(let channel) = result { channel.close(promise: nil) }
            return
        }
        switch result {
        case .success(let channel):
            guard let handler = try? channel.pipeline.syncOperations.handler(type: UpstreamExchangeHandler.self) else {
                channel.close(promise: nil)
                state = .closed
                owner.upstreamConnectFailed(ChannelError.inappropriateOperationForState)
                return
            }
            handler.owner = owner
            state = .open(handler)
            handler.send(pending, body: body)
        case .failure(let error):
            state = .closed
            owner.upstreamConnectFailed(error)
        }
    }

    /// Pauses or resumes reading the upstream's response (the client's side is full, or has room).
    func setReading(_ reading: Bool) {
        if case .open(let handler) = state { handler.setReading(reading) }
    }

    /// Closes the connection (or gives up the one being opened).
    func close() {
        if case .open(let handler) = state {
            handler.owner = nil
            handler.close()
        }
        state = .closed
    }
}

/// The handler at the end of an upstream connection's pipeline, behind SwiftNIO's HTTP/1
/// response decoder and our ``UpstreamRequestEncoder``: writes the request as it is (the
/// encoder writes its bytes), hands the response parts to the client connection's handler in
/// swift-http-types.
final class UpstreamExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = UpstreamRequestPart

    /// The client connection's handler; weak, so neither connection keeps the other alive.
    weak var owner: ForwardingHandler?
    private var context: ChannelHandlerContext?

    /// A request's body is still being written: the connection is not free for the next.
    private var bodyPending = false

    /// Open, and done with the last request's body (an upstream may answer before it is all sent).
    var isReusable: Bool { (context?.channel.isActive ?? false) && !bodyPending }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func send(_ request: HTTPRequest, body: OutgoingBody) {
        guard let context else { return }
        switch body {
        case .empty:
            context.write(wrapOutboundOut(.head(request)), promise: nil)
        case .bytes(let bytes):
            var request = request
            request.headerFields[.contentLength] = String(bytes.count)
            context.write(wrapOutboundOut(.head(request)), promise: nil)
            context.write(wrapOutboundOut(.body(ByteBuffer(bytes: bytes))), promise: nil)
        case .file, .stream:
            guard let source = try? ChunkSource.opening(body) else {
                // The forwarding handler sees the connection close and answers 502.
                context.close(promise: nil)
                return
            }
            var request = request
            request.headerFields[.contentLength] = String(source.length)
            context.writeAndFlush(wrapOutboundOut(.head(request)), promise: nil)
            stream(source, on: context.channel)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.end), promise: nil)
    }

    /// Writes `source`'s chunks, each read off the event loop once the last is written; a
    /// chunk that cannot be read or written closes the connection.
    private func stream(_ source: ChunkSource, on channel: any Channel) {
        bodyPending = true
        let sent = NIOLoopBound(self, eventLoop: channel.eventLoop)
        Task {
            do {
                for try await chunk in UploadChunks(source: source) {
                    try await channel.writeAndFlush(UpstreamRequestPart.body(chunk))
                }
                try await channel.writeAndFlush(UpstreamRequestPart.end)
                channel.eventLoop.execute { sent.value.bodyPending = false }
            } catch {
                channel.close(promise: nil)
            }
        }
    }

    func setReading(_ reading: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: reading)
        if reading { context.read() }
    }

    func close() { context?.close(promise: nil) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard let response = HTTP1Conversions.response(head) else {
                // A status over 999: the forwarding handler sees the connection close and answers 502.
                return context.close(promise: nil)
            }
            owner?.upstreamRead(.head(response))
        case .body(let bytes): owner?.upstreamRead(.body(bytes))
        case .end(let trailers): owner?.upstreamRead(.end(trailers.map { HTTPFields(http1: $0) }))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        owner?.upstreamReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let owner = self.owner
        self.owner = nil
        owner?.upstreamClosed()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension UpstreamLink: Sendable {}

@available(*, unavailable)
extension UpstreamExchangeHandler: Sendable {}

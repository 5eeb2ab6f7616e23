import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix

/// The upstream connection an ``InlineForwardingHandler`` holds for its client connection
/// (over TLS for an https upstream): opened on the first inline request, on the same event
/// loop, kept open and reused while both sides keep it, opened again when the upstream closes
/// it. One request at a time, as the client connection's exchanges are one at a time.
final class UpstreamLink {
    private enum State {
        case closed
        case connecting(HTTPRequest)
        case open(UpstreamExchangeHandler)
    }

    private var state = State.closed
    private let host: String
    private let port: Int
    private let tls: UpstreamTLS?
    private let connectTimeout: TimeAmount

    init(host: String, port: Int, tls: UpstreamTLS?, connectTimeout: TimeAmount) {
        self.host = host
        self.port = port
        self.tls = tls
        self.connectTimeout = connectTimeout
    }

    /// Sends `request` (a body-less one) on the open connection, or on a new one; the
    /// response parts go to `owner`. Returns true when an already open connection was used
    /// (which the upstream may have closed meanwhile: a request lost that way can be sent again).
    @discardableResult
    func send(_ request: HTTPRequest, on loop: any EventLoop, to owner: InlineForwardingHandler) -> Bool {
        if case .open(let handler) = state, handler.isActive {
            handler.owner = owner
            handler.send(request)
            return true
        }
        close()
        state = .connecting(request)
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [host, tls] channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    // A failed handshake closes the connection: the exchange then fails (502).
                    if let tls { try operations.addHandler(try tls.handler(for: host)) }
                    try operations.addHTTPClientHandlers()
                    try operations.addHandler(HTTP1ToHTTPClientCodec())
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

    private func connected(_ result: Result<any Channel, any Error>, owner: InlineForwardingHandler?) {
        guard case .connecting(let pending) = state, let owner else {
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
            handler.send(pending)
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

/// The handler at the end of an upstream connection's pipeline: writes the request, hands
/// the response parts to the client connection's handler.
final class UpstreamExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPRequestPart

    /// The client connection's handler; weak, so neither connection keeps the other alive.
    weak var owner: InlineForwardingHandler?
    private var context: ChannelHandlerContext?

    var isActive: Bool { context?.channel.isActive ?? false }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func send(_ request: HTTPRequest) {
        guard let context else { return }
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func setReading(_ reading: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: reading)
        if reading { context.read() }
    }

    func close() { context?.close(promise: nil) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.upstreamRead(unwrapInboundIn(data))
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

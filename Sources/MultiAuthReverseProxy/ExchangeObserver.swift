package import HTTPTypes
import MultiAuthCore
package import NIOCore
package import NIOHTTPTypes

/// What a request presented as its credential, for labels and the access log: the mode
/// (`AWS_IAM`, `API_KEY`, `JWT`, `NONE`) and a principal that is never a secret (an access
/// key id, an API key's name, `-`).
package typealias PresentedIdentity = @Sendable (HTTPRequest) -> (mode: String, principal: String)

/// Watches every exchange on one connection (a refusal included): when its request head arrives and when its response ends, and how many
/// bytes the response carried. Reports each to ``ServerMetrics`` and the ``AccessLog``.
///
/// Goes among the HTTP/1 channel's additional handlers, one per connection, on the
/// connection's event loop only. Responses come in request order (HTTP/1), so the exchanges
/// waiting for theirs are a queue.
package final class ExchangeObserver: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private struct Exchange {
        let method: HTTPRequest.Method
        let path: String
        let mode: String
        let principal: String
        let started: NIODeadline
        let startedAt: Double
        var status = 0
        var bytes = 0
    }

    private let metrics: ServerMetrics?
    private let accessLog: AccessLog?
    private let identify: PresentedIdentity
    private var exchanges: [Exchange] = []

    /// An observer reporting to `metrics` and `accessLog` (either may be nil).
    package init(metrics: ServerMetrics?, accessLog: AccessLog?, identify: @escaping PresentedIdentity) {
        self.metrics = metrics
        self.accessLog = accessLog
        self.identify = identify
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            // Only the access log names who a request presented: metrics alone skip the lookup.
            let (mode, principal) = accessLog == nil ? ("", "") : identify(head)
            let path = head.path.map { String($0.prefix { $0 != "?" }) } ?? "*"
            exchanges.append(Exchange(
                method: head.method, path: path, mode: mode, principal: principal, started: .now(), startedAt: TimeSource.system.now()))
            metrics?.requestStarted(head.method)
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            if !exchanges.isEmpty { exchanges[0].status = head.status.code }
        case .body(let buffer):
            if !exchanges.isEmpty { exchanges[0].bytes += buffer.readableBytes }
        case .end:
            if !exchanges.isEmpty { finish(exchanges.removeFirst()) }
        default: break
        }
        context.write(data, promise: promise)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        // Exchanges the client left before their answer: status 0.
        for exchange in exchanges { finish(exchange) }
        exchanges.removeAll()
        context.fireChannelInactive()
    }

    private func finish(_ exchange: Exchange) {
        let seconds = Double((NIODeadline.now() - exchange.started).nanoseconds) / 1e9
        metrics?.requestEnded(exchange.method, status: exchange.status, seconds: seconds)
        accessLog?.record(
            method: exchange.method, path: exchange.path, status: exchange.status, mode: exchange.mode, principal: exchange.principal,
            bytes: exchange.bytes, seconds: seconds, at: exchange.startedAt)
    }
}

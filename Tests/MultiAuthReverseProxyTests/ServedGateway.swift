import HTTPTypes
import HummingbirdCore
import Logging
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import MultiAuthTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The gateway served in process on 127.0.0.1, as `multiauth gateway --api` serves it
/// (``ForwardingChannel`` under Hummingbird's `Server`, with the ``ExchangeGuards``), in front
/// of a ``RecordingUpstream``; clients speak raw bytes to it (``RawClient``).
enum ServedGateway {
    /// Serves `yaml` (`@UPSTREAM@` replaced by the upstream's origin) while `body` runs with
    /// the gateway's port and the upstream.
    static func with(_ yaml: String, apiKeys: [String: String] = ["gw-key": "gold"], _ body: (Int, RecordingUpstream) async throws -> Void) async throws {
        let upstream = try await RecordingUpstream.start()
        defer { upstream.stop() }
        let definition = try APIDefinition.load(Array(yaml.replacing("@UPSTREAM@", with: "http://127.0.0.1:\(upstream.port)").utf8), name: "served.yaml")
        let tls = try UpstreamTLS(caBundle: nil, verifies: true)
        let policy = try APIGatewayPolicy(
            definition, verifier: nil, apiKeys: apiKeys, tokenChecks: [:], tls: tls,
            deployment: APIDeployment(region: "us-east-1", account: "123456789012", apiId: "api", stage: "prod"), http: ScriptedSender([.answer(500, "")]))
        let forwarder = try UpstreamForwarder(upstream: "http://127.0.0.1:\(upstream.port)/")
        let logger = Logger(label: "served-gateway", factory: { _ in SwiftLogNoOpLogHandler() })
        let gateway = VerifyingGateway(authorizers: CurrentAuthorizer(InboundAuthorizer()), forwarder: forwarder, api: CurrentAPIPolicy(policy))
        try await serve(gateway, tls: tls, logger: logger) { try await body($0, upstream) }
    }

    /// Serves `multiauth authz` accepting `apiKeys` (key → name), in front of nothing (its
    /// placeholder upstream is never called), while `body` runs with its port.
    static func authz(apiKeys: [String: String], contract: AuthzContract, _ body: (Int) async throws -> Void) async throws {
        let tls = try UpstreamTLS(caBundle: nil, verifies: true)
        let logger = Logger(label: "served-authz", factory: { _ in SwiftLogNoOpLogHandler() })
        let gateway = VerifyingGateway(
            authorizers: CurrentAuthorizer(InboundAuthorizer(apiKeys: apiKeys)), forwarder: try UpstreamForwarder(upstream: "http://127.0.0.1:9/"),
            authz: contract)
        try await serve(gateway, tls: tls, logger: logger, body)
    }

    private static func serve(_ gateway: VerifyingGateway, tls: UpstreamTLS, logger: Logger, _ body: (Int) async throws -> Void) async throws {
        let forwarding = Forwarding(route: gateway.route(tls: tls, logger: logger), timeout: 30, logger: logger)
        let channel = ForwardingChannel(forwarding: forwarding) {
            [ExchangeGuards(headLimit: .seconds(30), bodyTimeout: .seconds(30), minimumRate: 1)]
        }
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        let server = channel.server(
            configuration: ServerConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "served-gateway"),
            onServerRunning: { announce.yield($0.localAddress?.port ?? 0) }, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var next = ports.makeAsyncIterator()
            guard let port = await next.next() else { throw ChannelError.ioOnClosedChannel }
            do { try await body(port) } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }
}

/// An upstream that records each request line as it arrived (method, target, version) and
/// answers 200 with the target as its body. SwiftNIO's HTTP/1 decoder reads the line and
/// keeps the target as sent.
final class RecordingUpstream: Sendable {
    private let recorded = Mutex<[String]>([])
    private let channel = Mutex<(any Channel)?>(nil)
    let port: Int

    private init(port: Int) { self.port = port }

    /// The request lines received so far, in order.
    var lines: [String] { recorded.withLock { $0 } }

    static func start() async throws -> RecordingUpstream {
        let box = Mutex<RecordingUpstream?>(nil)
        let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Recorder { line in box.withLock { $0?.recorded.withLock { $0.append(line) } } })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let upstream = RecordingUpstream(port: bound.localAddress?.port ?? 0)
        upstream.channel.withLock { $0 = bound }
        box.withLock { $0 = upstream }
        return upstream
    }

    func stop() { channel.withLock { $0?.close(promise: nil) } }

    private final class Recorder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let record: @Sendable (String) -> Void
        var target = ""

        init(_ record: @escaping @Sendable (String) -> Void) { self.record = record }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                target = head.uri
                record("\(head.method.rawValue) \(head.uri) \(head.version)")
            case .body: break
            case .end:
                let body = ByteBuffer(string: target)
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "\(body.readableBytes)"]))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}

/// A client that writes raw bytes and reads everything back until the server closes the
/// connection, or `limit` passes (then `closed` is false: the server left it open).
enum RawClient {
    static func exchange(_ port: Int, _ text: String, limit: TimeAmount = .seconds(20)) async throws -> (text: String, closed: Bool) {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let done = loop.makePromise(of: String.self)
        let timedOut = Mutex(false)
        let channel = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(done)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: text))
        let timer = loop.scheduleTask(in: limit) {
            timedOut.withLock { $0 = true }
            channel.close(promise: nil)
        }
        let read = try await done.futureResult.get()
        timer.cancel()
        return (read, !timedOut.withLock { $0 })
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let done: EventLoopPromise<String>
        var text = ""

        init(_ done: EventLoopPromise<String>) { self.done = done }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            text += buffer.readString(length: buffer.readableBytes) ?? ""
        }

        func channelInactive(context: ChannelHandlerContext) { done.succeed(text) }
    }
}

extension String {
    /// The statuses of the HTTP/1 answers in this text, in order (`200 OK`).
    var statuses: [String] {
        ranges(of: "HTTP/1.1 ").map { String(self[$0.upperBound...].prefix { !$0.isNewline }) }
    }
}

import ArgumentParser
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import MultiAuthCLI
import MultiAuthReverseProxy
import MultiAuthServerGuards
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization

/// `--metrics-listen` and `--access-log`, shared by the proxy and the gateway.
struct ObservabilityOptions: ParsableArguments {
    @Option(help: "Serve Prometheus metrics at /metrics and a health check at /healthz on HOST:PORT: a listener of its own, never the proxied port.")
    var metricsListen: String?
    @Option(help: "Append one JSON line per request to FILE (created 0600), or write them to standard output with -: time, method, path without query, status, mode, principal, bytes, duration; never a key, token, signature or query.")
    var accessLog: String?

    func validate() throws {
        if let metricsListen { _ = try ListenAddress(metricsListen, flag: "--metrics-listen") }
    }
}

/// What a server reports, made once per process from the options: the metrics (the process's
/// metrics system is bootstrapped with a Prometheus registry), the access log, and the
/// listener that serves `/metrics` and `/healthz`.
struct Observability: Sendable {
    let metrics: ServerMetrics?
    let accessLog: AccessLog?
    let registry: PrometheusCollectorRegistry?
    let metricsAddress: ListenAddress?
    /// Set once the server begins to drain: `/healthz` then answers 503.
    let health = HealthState()

    init(_ options: ObservabilityOptions, decision: ServerMetrics.Decision) throws {
        if let listen = options.metricsListen {
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            self.registry = registry
            metricsAddress = try ListenAddress(listen, flag: "--metrics-listen")
            metrics = ServerMetrics(decision: decision)
        } else {
            (registry, metricsAddress, metrics) = (nil, nil, nil)
        }
        if let path = options.accessLog {
            do throws(AccessLogError) { accessLog = try AccessLog(path: path) } catch { throw CLIError("--access-log", error) }
        } else {
            accessLog = nil
        }
    }

    /// The per-connection observer, when anything is reported.
    func observer(identify: @escaping PresentedIdentity) -> ExchangeObserver? {
        guard metrics != nil || accessLog != nil else { return nil }
        return ExchangeObserver(metrics: metrics, accessLog: accessLog, identify: identify)
    }

    /// The most connections the metrics listener holds open at once.
    static let metricsConnections = 32

    /// The metrics listener as a service, when one was asked for. `problem` says why the
    /// server cannot serve (nil: it can).
    func metricsService(problem: @escaping @Sendable () async -> String?, logger: Logger) -> (any Service)? {
        guard let registry, let metricsAddress else { return nil }
        let responder = MetricsResponder(registry: registry, health: health, problem: problem)
        // A scraper that opens connections without end gets 503s, never the proxied port's file descriptors.
        let connections = ConnectionLimit.Counter(limit: Self.metricsConnections, logger: logger)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimit(connections), RequestHeadDeadline(limit: .seconds(10))], idleTimeout: .seconds(30))
        return Application(
            responder: responder, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(metricsAddress.host, port: metricsAddress.port), serverName: "multiauth-metrics"),
            onServerRunning: { channel in
                StandardError.emit("metrics and health at http://\(metricsAddress.host):\(channel.localAddress?.port ?? metricsAddress.port)/metrics and /healthz")
            },
            logger: logger)
    }
}

/// Whether the server is draining.
final class HealthState: Sendable {
    let draining = Atomic<Bool>(false)
}

/// A service that marks the server draining as soon as a graceful shutdown begins: it is
/// the last of its group, so it hears of the shutdown first.
struct DrainNotice: Service {
    let health: HealthState

    func run() async throws {
        try? await gracefulShutdown()
        health.draining.store(true, ordering: .relaxed)
    }
}

/// `GET /metrics` (Prometheus text) and `GET /healthz` (200 `ok`, or 503 and why).
struct MetricsResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let registry: PrometheusCollectorRegistry
    let health: HealthState
    let problem: @Sendable () async -> String?

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        guard request.method == .get || request.method == .head else { return Self.text(.methodNotAllowed, "method not allowed\n") }
        switch request.uri.path {
        case "/metrics":
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        case "/healthz":
            if health.draining.load(ordering: .relaxed) { return Self.text(.serviceUnavailable, "draining\n") }
            if let problem = await problem() { return Self.text(.serviceUnavailable, problem + "\n") }
            return Self.text(.ok, "ok\n")
        default:
            return Self.text(.notFound, "not found\n")
        }
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

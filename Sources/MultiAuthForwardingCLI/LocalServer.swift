import HummingbirdCore
import HummingbirdTLS
import Logging
import MultiAuthCLI
import MultiAuthCore
import MultiAuthReverseProxy
import MultiAuthServerGuards
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import UnixSignals

/// The HTTP server under `multiauth proxy` and `multiauth gateway`: HTTP/1.1 on a pipeline of
/// our own (``MultiAuthReverseProxy/ForwardingChannel``) served by Hummingbird's `Server`, run
/// as a ServiceLifecycle service (SIGINT or SIGTERM stop accepting and let requests in flight
/// finish), a request head given
/// `requestHeadTimeout` seconds to arrive whole, a body kept to a pace, `Expect: 100-continue`
/// answered (all three by ``MultiAuthReverseProxy/ExchangeGuards``), at most
/// `maxConnections` connections open at once (``ConnectionLimit``), headers over 80 KiB refused.
enum LocalServer {
    /// Serves `forwarding` on `listen` until a stop signal; prints `<name>: listening on http://HOST:PORT, <detail>`
    /// on standard error once the port is open (the actual port when `listen` asked for 0),
    /// and then tells systemd it is ready (``SystemdNotify``).
    /// With `observability`, every exchange is reported (`identify` names what a request
    /// presented), and its metrics listener runs beside the server, its `/healthz` saying
    /// `problem` (nil: healthy) until the server drains.
    static func run(
        _ forwarding: Forwarding, listen: ListenAddress, options: ServerOptions, name: String, detail: String,
        observability: Observability, companions: [any Service] = [], identify: @escaping PresentedIdentity, problem: @escaping @Sendable () async -> String? = { nil },
        logger: Logger
    ) async throws {
        let headLimit = TimeAmount.nanoseconds(Int64(options.requestHeadTimeout * 1e9))
        let bodyLimit = TimeAmount.nanoseconds(Int64(options.bodyTimeout * 1e9))
        let connections = ConnectionLimit.Counter(limit: options.maxConnections, logger: logger)
        let minimumRate = options.bodyMinRate
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            [observability.observer(identify: identify)].compactMap { $0 } + [
                ConnectionLimit(connections), ExchangeGuards(headLimit: headLimit, bodyTimeout: bodyLimit, minimumRate: minimumRate),
            ]
        }
        let channel = ForwardingChannel(forwarding: forwarding, handlers: handlers)
        let scheme = options.tlsCert == nil ? "http" : "https"
        let configuration = ServerConfiguration(address: .hostname(listen.host, port: listen.port), serverName: name)
        let running: @Sendable (any Channel) async -> Void = { channel in
            let port = channel.localAddress?.port ?? listen.port
            StandardError.emit("\(name.replacing("-", with: " ")): listening on \(scheme)://\(listen.host):\(port), \(detail)")
            SystemdNotify.send("READY=1\nSTATUS=listening on \(scheme)://\(listen.host):\(port)")
        }
        let server: any Service
        if let tls = try tlsConfiguration(options) {
            server = try TLSChannel(channel, tlsConfiguration: tls).server(
                configuration: configuration, onServerRunning: running, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } else {
            server = channel.server(
                configuration: configuration, onServerRunning: running, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        }
        // Shut down in reverse order: the drain notice first (/healthz turns 503), then the
        // server (requests in flight finish), then its companions (gRPC ext_authz), then the
        // metrics listener.
        let services: [any Service] = [observability.metricsService(problem: problem, logger: logger)].compactMap { $0 }
            + companions + [server, DrainNotice(health: observability.health)]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        await observability.accessLog?.drain()
    }

    /// The listener's TLS settings from `--tls-cert` and `--tls-key`, or nil for plain HTTP.
    private static func tlsConfiguration(_ options: ServerOptions) throws -> TLSConfiguration? {
        guard let certPath = options.tlsCert, let keyPath = options.tlsKey else { return nil }
        do { _ = try PathSafety.checkFile(keyPath, forbiddenMode: 0o077) } catch { throw CLIError("--tls-key", error) }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certPath) } catch { throw CLIError("--tls-cert", "\(certPath) holds no PEM certificate") }
        guard !chain.isEmpty else { throw CLIError("--tls-cert", "\(certPath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyPath, format: .pem) } catch { throw CLIError("--tls-key", "\(keyPath) holds no PEM private key") }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are deprecated (RFC 8996)
        if let caPath = options.tlsClientCa {
            let authorities: [NIOSSLCertificate]
            do { authorities = try NIOSSLCertificate.fromPEMFile(caPath) } catch { throw CLIError("--tls-client-ca", "\(caPath) holds no PEM certificate") }
            guard !authorities.isEmpty else { throw CLIError("--tls-client-ca", "\(caPath) holds no PEM certificate") }
            // A server that verifies asks for the client's certificate and fails a handshake without one.
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(authorities)
            configuration.sendCANameList = true
        }
        return configuration
    }
}

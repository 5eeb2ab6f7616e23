import GRPCCore
import GRPCNIOTransportHTTP2Posix
import ServiceLifecycle

/// The gRPC listener of `multiauth authz --grpc-listen`, as a `Service`: it serves
/// ``AuthorizationService`` until the service group shuts down, then lets checks in flight
/// finish.
package struct ExtAuthzServer: Service {
    let server: GRPCServer<HTTP2ServerTransport.Posix>
    let announce: @Sendable (String, Int) -> Void

    /// How the listener is secured.
    package enum Security: Sendable {
        /// Plain HTTP/2 (h2c), for a sidecar or a loopback address.
        case plaintext
        /// TLS with a PEM certificate chain and its key; with `clientCA`, a client must present
        /// a certificate that chains to one of its PEM certificates (mutual TLS).
        case tls(certificateChain: String, privateKey: String, clientCA: String?)
    }

    /// A server for `service` on `host` (an IPv4 or IPv6 address)`:port` (0: any free port) secured by `security`;
    /// `announce` is told the host and the bound port once it listens.
    package init(
        _ service: AuthorizationService, host: String, port: Int, security: Security, announce: @escaping @Sendable (String, Int) -> Void
    ) {
        let transportSecurity: HTTP2ServerTransport.Posix.TransportSecurity
        switch security {
        case .plaintext: transportSecurity = .plaintext
        case .tls(let chain, let key, nil):
            transportSecurity = .tls(certificateChain: [.file(path: chain, format: .pem)], privateKey: .file(path: key, format: .pem))
        case .tls(let chain, let key, let authorities?):
            transportSecurity = .mTLS(certificateChain: [.file(path: chain, format: .pem)], privateKey: .file(path: key, format: .pem)) {
                $0.trustRoots = .certificates([.file(path: authorities, format: .pem)])
            }
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let address: GRPCNIOTransportCore.SocketAddress = bare.contains(":") ? .ipv6(host: bare, port: port) : .ipv4(host: bare, port: port)
        let transport = HTTP2ServerTransport.Posix(address: address, transportSecurity: transportSecurity)
        server = GRPCServer(transport: transport, services: [service])
        self.announce = announce
    }

    package func run() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await server.serve() }
                if let address = try await server.listeningAddress {
                    if let ipv4 = address.ipv4 { announce(ipv4.host, ipv4.port) } else if let ipv6 = address.ipv6 { announce("[\(ipv6.host)]", ipv6.port) }
                }
            }
        } onGracefulShutdown: {
            server.beginGracefulShutdown()
        }
    }
}

import NIOCore
import NIOSSL

/// TLS to an https:// upstream: the same trust as `multiauth request`'s client (the system's
/// roots, or a CA bundle; or, for test set-ups, no check), one context shared
/// by every upstream connection. The name checked is the upstream's host; an IP address is
/// checked against the certificate's IP addresses (and sent without SNI, which names hosts only).
package struct UpstreamTLS: Sendable {
    let context: NIOSSLContext

    /// Trust for the upstream: `caBundle` (a PEM file) instead of the system's roots, and
    /// `verifies` false to check nothing.
    /// - Throws: NIOSSL's error when the bundle cannot be read.
    package init(caBundle: String?, verifies: Bool) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caBundle { configuration.trustRoots = .file(caBundle) }
        if !verifies { configuration.certificateVerification = .none }
        configuration.applicationProtocols = ["http/1.1"]
        context = try NIOSSLContext(configuration: configuration)
    }

    /// The client handler for a connection to `host`.
    func handler(for host: String) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: Self.isIPAddress(host) ? nil : host)
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

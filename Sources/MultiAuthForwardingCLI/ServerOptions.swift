package import ArgumentParser
import MultiAuthCLI
import MultiAuthCore
import MultiAuthReverseProxy
import NIOCore

/// What `multiauth proxy` and `multiauth gateway` share: where they listen, where they
/// forward, and how long they wait on each side.
package struct ServerOptions: ParsableArguments {
    package init() {}

    @Option(help: "Address to listen on, HOST:PORT (port 0 picks a free one).") var listen = "127.0.0.1:8080"
    @Option(help: "The upstream base URL; the received path and query are appended.") var upstream: String?
    @OptionGroup var observe: ObservabilityOptions
    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key); a plain-HTTP request on the port is refused." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    package var tlsCert: String?
    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (mode 0600)." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    package var tlsKey: String?
    @Option(help: ArgumentHelp("With --tls-cert: require a client certificate that chains to a CA in this PEM file (mutual TLS); a client without one fails the handshake." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    package var tlsClientCa: String?
    @Option(help: "Seconds the upstream has to answer before the client gets 504 (API Gateway's limit: 29); for an event stream (text/event-stream), the longest silence between events.")
    var upstreamTimeout: Double = 29
    @Option(help: "Seconds a client has to send a whole request head, from connecting or from the last response (a client trickling its headers is cut off).")
    var requestHeadTimeout: Double = 10
    @Option(help: "Seconds a client has to send a request body, from its head; each further --body-min-rate bytes earn one more second (a client trickling its body is answered 408 and cut off).")
    var bodyTimeout: Double = 20
    @Option(help: "Bytes per second a request body must keep up, past --body-timeout's first seconds; bytes sent early earn at most --body-timeout seconds ahead.")
    var bodyMinRate = 500
    @Option(help: "The most bytes of request bodies spooled to temporary files at once, all connections together; a body that would pass it is answered 503 (default: twice --max-body, at least 1 GiB).")
    var maxSpool: Int?

    /// `--max-spool`, or its default for bodies of at most `maxBody` bytes.
    func spoolBudget(maxBody: Int) -> SpoolBudget { SpoolBudget(capacity: maxSpool ?? max(2 * maxBody, 1 << 30)) }
    @Option(help: ArgumentHelp("A PEM file of CA certificates to trust for an https:// upstream instead of the system's." + SystemdCredential.helpSuffix), transform: SystemdCredential.path)
    var upstreamCaBundle: String?
    @Flag(help: "Do not verify the https:// upstream's certificate or name (anyone on the path can then read and change the traffic; for test set-ups only).")
    var upstreamInsecure = false
    @Option(help: "The most client connections held open at once; past it a new connection is answered 503 and closed (keep it under the open-file limit, ulimit -n).")
    var maxConnections = 1000
    /// Retired: each client connection now holds its own upstream connection (so the upstream
    /// sees at most `--max-connections`). Still accepted and checked, so scripts that pass it run on.
    @Option(help: ArgumentHelp("No longer used: each client connection holds its own upstream connection.", visibility: .hidden))
    var upstreamConnections = 32
    @Option(help: "Threads serving connections, as nginx's worker_processes (default: one per CPU core). One is the least CPU per request; more serve more requests at once on more cores.")
    var eventLoops: Int?

    /// Sizes the process's event loops with `--event-loops`: called before anything uses them.
    func sizeEventLoops() {
        if let eventLoops { NIOSingletons.groupLoopCountSuggestion = eventLoops }
    }

    /// TLS for an https upstream: the system's roots or `--upstream-ca-bundle`, or no check with `--upstream-insecure`.
    func upstreamTLS() throws -> UpstreamTLS {
        if upstreamInsecure { StandardError.emit("warning: --upstream-insecure: the upstream's TLS certificate is not verified") }
        do { return try UpstreamTLS(caBundle: upstreamCaBundle, verifies: !upstreamInsecure) } catch {
            throw CLIError("--upstream-ca-bundle", "\(error)")
        }
    }

    package func validate() throws {
        try ArgumentChecks.seconds(upstreamTimeout, "--upstream-timeout", in: 0.001...3_600)
        try ArgumentChecks.seconds(requestHeadTimeout, "--request-head-timeout", in: 0.001...3_600)
        try ArgumentChecks.seconds(bodyTimeout, "--body-timeout", in: 0.001...3_600)
        try ArgumentChecks.count(bodyMinRate, "--body-min-rate", in: 1...1_000_000_000)
        try ArgumentChecks.count(maxConnections, "--max-connections", in: 1...1_000_000)
        try ArgumentChecks.count(upstreamConnections, "--upstream-connections", in: 1...10_000)
        if let eventLoops { try ArgumentChecks.count(eventLoops, "--event-loops", in: 1...1_024) }
        try ArgumentChecks.readableFile(upstreamCaBundle, "--upstream-ca-bundle")
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if tlsClientCa != nil, tlsCert == nil { throw ValidationError("--tls-client-ca needs --tls-cert and --tls-key") }
        try ArgumentChecks.readableFile(tlsClientCa, "--tls-client-ca")
        try ArgumentChecks.readableFile(tlsCert, "--tls-cert")
        try ArgumentChecks.readableFile(tlsKey, "--tls-key")
        if upstreamInsecure, upstreamCaBundle != nil {
            throw ValidationError("--upstream-insecure skips the check --upstream-ca-bundle configures: give one of them")
        }
    }
}

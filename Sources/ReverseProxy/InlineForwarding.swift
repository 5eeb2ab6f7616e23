import HTTPTypes
import Logging
import NIOCore

/// What the proxy and the gateway do with a body-less request without leaving the
/// connection's event loop: decide on it (authorize or verify), then send it to the upstream
/// over a connection held for that client connection, and write the upstream's response back
/// as it arrives. No task, no thread hop and no copy of the body on the way; a request this
/// cannot take (one with a body, an `Expect` or `Upgrade`) goes the full way, through the
/// Hummingbird responder. An https upstream is reached over TLS here too (``UpstreamTLS``).
///
/// Built into the server by ``InlineForwardingChannel``; one ``InlineForwardingHandler`` per
/// connection does the work.
package struct InlineForwarding: Sendable {
    /// What happens to one request.
    package enum Decision: Sendable {
        /// Send this request (already authorized, addressed to the upstream) on. With a
        /// `rejectionCheck`, a 400, 401 or 403 answer is read whole first (up to 64 KiB) and
        /// handed to it: a decision it returns replaces the answer (the request signed again
        /// for a corrected clock, say), nil passes the answer on.
        case forward(HTTPRequest, body: UpstreamBody = .none, rejectionCheck: RejectionCheck? = nil)
        /// Answer the client with this response and body; nothing goes upstream.
        case answer(HTTPResponse, body: [UInt8])
        /// Leave the request to the full path (the Hummingbird responder).
        case fullPath
        /// Decide after something asynchronous (a token read, a credential refresh): the
        /// function runs once, in a task, and its decision is carried out on the event loop.
        case later(@Sendable () async -> Decision)
    }

    /// Looks at an upstream's rejection (its head and whole body) before the client sees it.
    package typealias RejectionCheck = @Sendable (HTTPResponse, [UInt8]) -> Decision?

    /// The statuses a ``RejectionCheck`` is shown, and the most of such an answer held for it.
    static let checkedStatuses: Set<Int> = [400, 401, 403]
    static let checkedBodyLimit = 64 << 10

    /// The upstream's host and port, and its TLS for an https upstream.
    let host: String
    let port: Int
    let tls: UpstreamTLS?
    /// The most time from sending a request to the upstream's last response byte.
    let timeout: TimeAmount
    /// Decides on each body-less request head, on the event loop: it must not block.
    let decide: @Sendable (HTTPRequest) -> Decision
    /// Decides on a request with a body, in a task: it reads the body as it needs.
    let decideWithBody: (@Sendable (HTTPRequest, InboundBody) async -> Decision)?
    let logger: Logger

    /// Inline forwarding to `forwarder`'s upstream, over `tls` for an https upstream (nil
    /// without it: that upstream is left to the full path). `decide` runs on the connection's
    /// event loop for every body-less request head and must return without blocking.
    /// `decideWithBody`, when given, decides on requests with a body (else they take the full path).
    package init?(
        forwarder: UpstreamForwarder, timeout: Double, tls: UpstreamTLS? = nil, logger: Logger,
        decideWithBody: (@Sendable (HTTPRequest, InboundBody) async -> Decision)? = nil,
        decide: @escaping @Sendable (HTTPRequest) -> Decision
    ) {
        let secure = forwarder.upstream.scheme == "https"
        guard forwarder.upstream.scheme == "http" || (secure && tls != nil) else { return nil }
        let host = forwarder.upstream.host
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = forwarder.upstream.port ?? (secure ? 443 : 80)
        self.tls = secure ? tls : nil
        self.timeout = .nanoseconds(Int64(timeout * 1e9))
        self.decide = decide
        self.decideWithBody = decideWithBody
        self.logger = logger
    }

    /// True for a request decided at once, on the event loop: no body (no
    /// `Transfer-Encoding`, a `Content-Length` of 0 or none), nothing asking for an interim
    /// response or a protocol switch, and not `CONNECT`.
    static func takesInline(_ head: HTTPRequest) -> Bool {
        guard head.method != .connect else { return false }
        for field in head.headerFields {
            switch field.name {
            case .transferEncoding, .expect, .upgrade: return false
            case .contentLength where field.value != "0": return false
            default: continue
            }
        }
        return true
    }

    /// The answer for a rejection or failure, as the full path gives it (API Gateway's form).
    static func answer(_ status: HTTPResponse.Status, _ type: String, _ message: String) -> Decision {
        let response = UpstreamForwarder.errorResponse(status, type, message)
        return .answer(response.head, body: response.body)
    }
}

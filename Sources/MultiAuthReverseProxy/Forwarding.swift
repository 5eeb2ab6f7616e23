package import HTTPTypes
package import Logging
import MultiAuthSigV4
import NIOCore

/// How the proxy and the gateway serve every request: decide on it (authorize or verify),
/// send it to its upstream over a connection held for the client's connection, and write the
/// upstream's response back as it arrives.
///
/// A body-less request is decided on the connection's event loop (no task, no thread hop)
/// when its route can (``Route/decide``), else in a task. A small body announced by its
/// `Content-Length` (at most ``Route/heldBodyLimit`` bytes, no `Expect`) is gathered on the
/// event loop and decided there with the request (``Route/decideWithBytes``); any other body
/// is decided in a task that reads it as it arrives (``Route/decideWithBody``). With several
/// routes, the request's `Host` picks one; a host without a route is answered 421.
///
/// Built into the server by ``ForwardingChannel``; one ``ForwardingHandler`` per
/// connection does the work.
package struct Forwarding: Sendable {
    /// What happens to one request.
    package enum Decision: Sendable {
        /// Send this request (already authorized, addressed to the upstream) on, with `body`.
        /// With a `rejectionCheck`, a 400, 401 or 403 answer is read whole first (up to 64 KiB)
        /// and handed to it: a decision it returns replaces the answer (the request signed
        /// again for a corrected clock, say), nil passes the answer on.
        /// `upstream` sends it somewhere other than the route's upstream (an API definition's
        /// integration); `responseFields` are set on the upstream's response (CORS).
        case forward(
            HTTPRequest, body: UpstreamBody = .none, rejectionCheck: RejectionCheck? = nil, upstream: Upstream? = nil,
            responseFields: HTTPFields = HTTPFields())
        /// Answer the client with this response and body; nothing goes upstream.
        case answer(HTTPResponse, body: [UInt8])
        /// Decide after something asynchronous (a token read, a credential refresh): the
        /// function runs once, in a task, and its decision is carried out on the event loop.
        case later(@Sendable () async -> Decision)
    }

    /// Looks at an upstream's rejection (its head and whole body) before the client sees it.
    package typealias RejectionCheck = @Sendable (HTTPResponse, [UInt8]) -> Decision?

    /// Where requests are sent: a host, a port, and TLS for an https upstream.
    package struct Upstream: Sendable, Equatable {
        let host: String
        let port: Int
        /// TLS for an https upstream; nil for http.
        let tls: UpstreamTLS?

        /// The upstream `url` names, over `tls` when it is https.
        init(_ url: WireURL, tls: UpstreamTLS) {
            let secure = url.scheme == "https"
            host = url.host.hasPrefix("[") && url.host.hasSuffix("]") ? String(url.host.dropFirst().dropLast()) : url.host
            port = url.port ?? (secure ? 443 : 80)
            self.tls = secure ? tls : nil
        }

        package static func == (lhs: Upstream, rhs: Upstream) -> Bool { lhs.host == rhs.host && lhs.port == rhs.port && (lhs.tls == nil) == (rhs.tls == nil) }
    }

    /// One upstream and how the requests sent to it are decided.
    package struct Route: Sendable {
        let upstream: Upstream
        /// Decides on a body-less request head from a client, on the event loop: it must not block.
        let decide: @Sendable (HTTPRequest, ClientConnection) -> Decision
        /// Decides on a request with a body, in a task: it reads the body as it needs.
        let decideWithBody: @Sendable (HTTPRequest, ClientConnection, InboundBody) async -> Decision
        /// Decides on a request whose whole body (at most ``heldBodyLimit`` bytes) has been
        /// gathered, on the event loop: it must not block.
        let decideWithBytes: @Sendable (HTTPRequest, ClientConnection, [UInt8]) -> Decision
        /// The most bytes of a body gathered for ``decideWithBytes``: the forwarder's spool
        /// threshold and body limit, and 64 KiB, whichever is least.
        let heldBodyLimit: Int

        /// A route to `forwarder`'s upstream, over `tls` when it is https.
        package init(
            forwarder: UpstreamForwarder, tls: UpstreamTLS,
            decideWithBody: @escaping @Sendable (HTTPRequest, ClientConnection, InboundBody) async -> Decision,
            decideWithBytes: @escaping @Sendable (HTTPRequest, ClientConnection, [UInt8]) -> Decision,
            decide: @escaping @Sendable (HTTPRequest, ClientConnection) -> Decision
        ) {
            upstream = Upstream(forwarder.upstream, tls: tls)
            self.decide = decide
            self.decideWithBody = decideWithBody
            self.decideWithBytes = decideWithBytes
            heldBodyLimit = min(64 << 10, forwarder.maxBodySize, forwarder.spoolThreshold)
        }

        /// The length of `head`'s body when it is gathered for ``decideWithBytes``: a single
        /// `Content-Length` from 1 to ``heldBodyLimit``, nothing asking for an interim
        /// response, a protocol switch or chunks, and not `CONNECT`; nil otherwise.
        func heldBodyLength(_ head: HTTPRequest) -> Int? {
            guard head.method != .connect else { return nil }
            var length: Int?
            for field in head.headerFields {
                switch field.name {
                case .transferEncoding, .expect, .upgrade: return nil
                case .contentLength:
                    guard length == nil, let value = Int(field.value), value > 0, value <= heldBodyLimit else { return nil }
                    length = value
                default: continue
                }
            }
            return length
        }
    }

    /// The statuses a ``RejectionCheck`` is shown, and the most of such an answer held for it.
    static let checkedStatuses: Set<Int> = [400, 401, 403]
    static let checkedBodyLimit = 64 << 10

    /// True when an upstream answer is an event stream: its first `Content-Type` starts with
    /// `text/event-stream`. Read in place: swift-http-types' joining subscript cost 0.7 µs an
    /// answer.
    static func announcesEventStream(_ fields: HTTPFields) -> Bool {
        fields.first { $0.name == .contentType }?.value.utf8.starts(with: "text/event-stream".utf8) == true
    }

    /// The routes by host name (lowercase, no port); `""` alone for a single upstream.
    let routes: [String: Route]
    /// The most time from sending a request to the upstream's last response byte.
    let timeout: TimeAmount
    let logger: Logger

    /// Every request to `route`; `timeout` seconds from sending a request to its last response byte.
    package init(route: Route, timeout: Double, logger: Logger) {
        self.init(routes: ["": route], timeout: timeout, logger: logger)
    }

    /// Requests to the route their `Host` names (`routes` by lowercase host name).
    package init(routes: [String: Route], timeout: Double, logger: Logger) {
        self.routes = routes
        self.timeout = .nanoseconds(Int64(timeout * 1e9))
        self.logger = logger
    }

    /// The route for `head`: the only one, or the one its `Host` names.
    func route(for head: HTTPRequest) -> Route? {
        if routes.count == 1, let only = routes[""] { return only }
        return routes[Self.hostName(head.authority)]
    }

    /// `authority`'s host, lowercase, without a port (`[::1]:80` gives `[::1]`).
    static func hostName(_ authority: String?) -> String {
        guard let authority else { return "" }
        let host: Substring
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            host = authority[...end]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host.lowercased()
    }

    /// True for a request decided at once, on the event loop: no body (no `Transfer-Encoding`,
    /// a `Content-Length` of 0 or none), nothing asking for an interim response or a protocol
    /// switch, and not `CONNECT`.
    static func decidesAtOnce(_ head: HTTPRequest) -> Bool {
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

    /// The answer for a rejection or failure (API Gateway's form).
    static func answer(_ status: HTTPResponse.Status, _ type: String, _ message: String) -> Decision {
        let response = UpstreamForwarder.errorResponse(status, type, message)
        return .answer(response.head, body: response.body)
    }
}

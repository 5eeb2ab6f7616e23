import HTTPTypes
import Hummingbird

/// The signing proxy with several upstreams: the request's `Host` (its name, without the
/// port, case-insensitively) picks the route, each with its own upstream and authorization
/// (region, service, role). A host with no route is answered 421 and nothing is forwarded.
package struct HostRoutingResponder: HTTPResponder {
    let routes: [String: SigningProxyResponder]

    /// Routes by host name (lowercase, no port).
    package init(routes: [String: SigningProxyResponder]) {
        self.routes = routes
    }

    package func respond(to request: Request, context: ForwardingContext) async throws -> Response {
        guard let route = routes[Self.hostName(request.head.authority)] else {
            return UpstreamForwarder.error(.misdirectedRequest, "MisdirectedRequestException", "No route for this host")
        }
        return try await route.respond(to: request, context: context)
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
}

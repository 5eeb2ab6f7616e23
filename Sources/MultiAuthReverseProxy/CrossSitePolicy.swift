import HTTPTypes
import MultiAuthCore

/// What the signing proxy refuses so that a web page cannot use it: the proxy adds the user's
/// credentials to whatever reaches it, so a page the user visits could otherwise call the API
/// as the user (`text/plain` POSTs need no preflight) and, through DNS rebinding, read the
/// answer. Refused with 403: a `Host` that is neither an address, `localhost`, nor a name the
/// proxy was given (its routes, `--allow-host`); and a request a browser marks as coming from a
/// page (`Origin`, or `Sec-Fetch-Site` other than `none` or `same-origin`) unless its origin
/// is the proxy's own or was allowed (`--allow-origin`).
package struct CrossSitePolicy: Sendable {
    let hosts: Set<String>
    let origins: Set<String>

    /// Host names (lowercase, no port) and origins (`scheme://host[:port]`) allowed beside the defaults.
    package init(hosts: [String] = [], origins: [String] = []) {
        self.hosts = Set(hosts.compactMap { HostField.hostName($0) })
        self.origins = Set(origins.map { $0.lowercased() })
    }

    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// The answer refusing `head`, or nil when it may pass.
    func refusal(_ head: HTTPRequest) -> Forwarding.Decision? {
        let host = head.authority
        guard HostField.isAddressOrLocalhost(host) || HostField.hostName(host).map(hosts.contains) == true else {
            return Forwarding.answer(.forbidden, "ForbiddenException", "Host not allowed: give the proxy's address, or allow the name with --allow-host")
        }
        let origin = head.headerFields[.origin]
        let site = head.headerFields[Self.fetchSite]?.lowercased()
        let fromPage = origin != nil || (site != nil && site != "none" && site != "same-origin")
        guard !fromPage || origin.map({ isAllowed(origin: $0.lowercased(), host: host) }) == true else {
            return Forwarding.answer(.forbidden, "ForbiddenException", "requests from web pages are refused; allow an origin with --allow-origin")
        }
        return nil
    }

    /// An allowed origin, or the proxy's own (a page the upstream served through the proxy,
    /// at a `Host` the check above let in).
    private func isAllowed(origin: String, host: String?) -> Bool {
        if origins.contains(origin) { return true }
        guard let host = host?.lowercased() else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }
}

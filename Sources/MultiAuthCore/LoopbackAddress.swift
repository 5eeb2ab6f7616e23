/// Whether a host is this machine's loopback, for the places that take plain `http://` only
/// from it (a container credentials endpoint, SAML metadata, a JWT issuer). Names are not
/// resolved: `127.evil.example` is a name, not a loopback address.
package enum LoopbackAddress {
    /// 127.0.0.0/8 and ::1, as Python's `ip_address(host).is_loopback` says.
    package static func contains(_ host: String) -> Bool {
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil && ($0.count == 1 || !$0.hasPrefix("0")) }) else { return false }
        return parts[0] == "127"
    }

    /// `[::1]:80` → `::1`, `127.0.0.1:8080` → `127.0.0.1`.
    package static func host(of authority: some StringProtocol) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// True for an `http://` URL whose host is a loopback address or `localhost`.
    package static func isPlainHTTPOnLoopback(_ url: String) -> Bool {
        guard url.hasPrefix("http://") else { return false }
        let host = host(of: url.dropFirst("http://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        return host == "localhost" || contains(host)
    }
}

/// Checks of a request's `Host` (its authority) that local servers make.
package enum HostField {
    /// True for an IP address (IPv4, or IPv6 in brackets) or `localhost`, with or without a
    /// port. A page a browser loaded can reach a local server under a name of its own (DNS
    /// rebinding), never under these: a local server that must not answer web pages takes
    /// only these, and the names it was told.
    package static func isAddressOrLocalhost(_ authority: String?) -> Bool {
        guard let name = hostName(authority) else { return false }
        if name == "localhost" { return true }
        if name.hasPrefix("[") { return name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && (Int(part).map { (0...255).contains($0) } ?? false) }
    }

    /// The authority's host, lowercase, without its port (`[…]` kept for IPv6); nil for an
    /// empty or malformed one.
    package static func hostName(_ authority: String?) -> String? {
        guard let authority, !authority.isEmpty else { return nil }
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy { $0.isNumber }) else { return nil }
            return String(host[...close])
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy({ $0.isNumber }) else { return nil }
            host = host[..<colon]
        }
        return host.isEmpty ? nil : String(host)
    }
}

/// Checks of a request's `Host` (its authority) that local servers make.
package enum HostField {
    /// True for an IP address (IPv4, or IPv6 in brackets) or `localhost`, with or without a
    /// port. A page a browser loaded can reach a local server under a name of its own (DNS
    /// rebinding), never under these: a local server that must not answer web pages takes
    /// only these, and the names it was told.
    package static func isAddressOrLocalhost(_ authority: String?) -> Bool {
        if let authority, isDottedQuad(authority, portAllowed: true) { return true }  // the common case, asked on every proxied request
        guard let name = hostName(authority) else { return false }
        if name == "localhost" { return true }
        if name.hasPrefix("[") { return name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        return isDottedQuad(name, portAllowed: false)
    }

    /// True for `a.b.c.d` with each part 0 to 255 in at most three digits, and, when
    /// `portAllowed`, an optional `:port` of digits.
    private static func isDottedQuad(_ authority: String, portAllowed: Bool) -> Bool {
        var parts = 0
        var digits = 0
        var value = 0
        var inPort = false
        for byte in authority.utf8 {
            if inPort {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else if byte == UInt8(ascii: "."), digits > 0, parts < 3 {
                (parts, digits, value) = (parts + 1, 0, 0)
            } else if portAllowed, byte == UInt8(ascii: ":"), digits > 0, parts == 3 {
                inPort = true
            } else {
                return false
            }
        }
        return parts == 3 && (digits > 0 || inPort)
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

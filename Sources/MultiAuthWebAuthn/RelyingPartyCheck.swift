/// The origin checks a browser makes before it lets a page use a relying party id (WebAuthn
/// §5.1.3 step 8, §5.1.4 step 8): the origin is https (or http on localhost), and the id is
/// its host or a parent domain of it, never a bare public suffix.
enum RelyingPartyCheck {
    /// The origin's host, once the origin is one a browser would accept. The origin is then
    /// made only of host characters, `:` and digits after its scheme: safe in JSON text as it is.
    static func host(ofOrigin origin: String) throws(WebAuthnError) -> String {
        let lowered = origin.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = lowered.dropFirst("https://".count)
        } else if lowered.hasPrefix("http://localhost") {
            rest = lowered.dropFirst("http://".count)
        } else {
            throw WebAuthnError(.relyingPartyMismatch, "the origin \(origin) is not https (only http://localhost may be plain)")
        }
        guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            throw WebAuthnError(.relyingPartyMismatch, "the origin \(origin) has more than a scheme, a host and a port")
        }
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0]
        guard parts.count == 1 || (!parts[1].isEmpty && parts[1].utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }) else {
            throw WebAuthnError(.relyingPartyMismatch, "the origin \(origin) has a port that is not a number")
        }
        guard !host.isEmpty, host.utf8.allSatisfy(isHostByte) else {
            throw WebAuthnError(.relyingPartyMismatch, "the origin \(origin) has no host name")
        }
        return String(host)
    }

    /// Refuses `relyingPartyId` unless it is `host` or a parent domain of it with at least two
    /// labels (a page on `login.example.com` may use `example.com`, never `com`).
    static func check(relyingPartyId: String, host: String) throws(WebAuthnError) {
        let id = relyingPartyId.lowercased()
        let allowed = id == host || (host.hasSuffix("." + id) && id.contains(".") && !id.hasPrefix(".") && !id.hasSuffix("."))
        guard allowed, id.utf8.allSatisfy(isHostByte) else {
            throw WebAuthnError(.relyingPartyMismatch, "the relying party \(relyingPartyId) is not \(host) or a domain above it: a browser on that origin would refuse it")
        }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2d || byte == 0x2e
    }
}

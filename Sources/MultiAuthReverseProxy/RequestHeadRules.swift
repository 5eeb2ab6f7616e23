import HTTPTypes
import MultiAuthCore
import NIOHTTP1

/// The rules a request head must keep, checked as it came, before its conversion to
/// swift-http-types (which keeps one `Host` and takes the target as the path): exactly one
/// non-empty `Host`; an origin-form target (`/…`; CONNECT and `OPTIONS *` are left to the
/// forwarder's own refusals); and only the characters RFC 3986 allows in a target, so that
/// every path is either forwarded or refused at once (a `\` or `"` once reached no upstream
/// and left the client waiting for a 504). An upgrade request is served as a plain one whose
/// answer closes the connection (nothing here upgrades, and the decoder reads nothing after
/// it). ``ClientHTTP1Codec`` applies them to every head.
enum RequestHeadRules {
    /// What is wrong with `head`, or nil.
    static func problem(_ head: HTTPRequestHead) -> String? {
        let hosts = head.headers["Host"]
        guard hosts.count == 1, let host = hosts.first, !host.isEmpty else {
            return hosts.isEmpty ? "a Host field is required" : "exactly one non-empty Host field is allowed"
        }
        // CONNECT (authority-form) and `OPTIONS *` get the forwarder's own answers.
        if head.method == .CONNECT || (head.method == .OPTIONS && head.uri == "*") { return nil }
        guard head.uri.utf8.first == UInt8(ascii: "/") else { return "only origin-form request targets (starting with /) are forwarded" }
        guard head.uri.utf8.allSatisfy(isTargetByte) else { return "the request target holds a character a URL may not" }
        return nil
    }

    /// `Connection: upgrade` with an `Upgrade` field: what the decoder takes for an upgrade.
    static func asksUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Upgrade")
            && head.headers["Connection"].contains { $0.split(separator: ",").contains { $0.trimmedWhitespace.lowercased() == "upgrade" } }
    }

    /// RFC 3986's unreserved, sub-delims, `:`, `@`, `/`, `?` and `%` (pct-encoded).
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
            UInt8(ascii: "?"), UInt8(ascii: "%"):
            true
        default: false
        }
    }
}

import HTTPTypes
import MultiAuthCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The request head as it came, checked before its conversion to swift-http-types (which
/// keeps the first `Host` and turns an absolute-form target into a path): exactly one
/// non-empty `Host`; an origin-form target (`/…`; CONNECT and `OPTIONS *` are left to the
/// forwarder's own refusals); and only the characters RFC 3986 allows in a target, so that every path is either
/// forwarded or refused at once (a `\` or `"` once reached no upstream and left the client
/// waiting for a 504). An upgrade request is served as a plain one whose answer closes the
/// connection (nothing here upgrades, and the decoder reads nothing after it). A head that breaks a rule is not passed on: a ``RefusedHead`` goes in
/// its place, which the ``ForwardingHandler`` answers 400 in its turn, after the answers owed
/// to requests before it, and then closes the connection. Nothing the connection sends after
/// it is read.
///
/// Goes between SwiftNIO's HTTP/1 server handlers and the conversion, one per connection.
final class RequestHeadRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// After a refusal, the rest of the connection's input is dropped.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        guard let problem = Self.problem(head) else {
            // SwiftNIO's decoder reads nothing after an upgrade request, waiting for an upgrader
            // that is not there: the answer ends the connection instead of leaving it stalled.
            if Self.asksUpgrade(head) { head.headers.replaceOrAdd(name: "Connection", value: "close") }
            return context.fireChannelRead(wrapInboundOut(.head(head)))
        }
        refused = true
        context.fireUserInboundEventTriggered(RefusedHead(problem: problem))
    }

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
        default: Self.allowedPunctuation.contains(byte)
        }
    }

    private static let allowedPunctuation = Set("-._~!$&'()*+,;=:@/?%".utf8)
}

/// A request head ``RequestHeadRules`` refused, in the place of that head: answered 400 with
/// `problem` once the requests before it are, and the connection closed after.
struct RefusedHead: Sendable {
    let problem: String
}

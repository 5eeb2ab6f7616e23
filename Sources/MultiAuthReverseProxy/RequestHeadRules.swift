import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The request head as it came, checked before its conversion to swift-http-types (which
/// keeps the first `Host` and turns an absolute-form target into a path): exactly one
/// non-empty `Host`; an origin-form target (`/…`; CONNECT and `OPTIONS *` are left to the
/// forwarder's own refusals); and only the characters RFC 3986 allows in a target, so that every path is either
/// forwarded or refused at once (a `\` or `"` once reached no upstream and left the client
/// waiting for a 504). A request that breaks a rule is answered 400 and the connection closed.
///
/// Goes between SwiftNIO's HTTP/1 server handlers and the conversion, one per connection.
final class RequestHeadRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// After a refusal, the rest of the connection's input is dropped.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data), let problem = Self.problem(head) else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        let answer = UpstreamForwarder.errorResponse(.badRequest, "BadRequestException", problem)
        var fields = answer.head.headerFields
        fields[.connection] = "close"
        fields[.contentLength] = String(answer.body.count)
        let responseHead = HTTPResponseHead(HTTPResponse(status: answer.head.status, headerFields: fields))
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
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

    /// RFC 3986's unreserved, sub-delims, `:`, `@`, `/`, `?` and `%` (pct-encoded).
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Self.allowedPunctuation.contains(byte)
        }
    }

    private static let allowedPunctuation = Set("-._~!$&'()*+,;=:@/?%".utf8)
}

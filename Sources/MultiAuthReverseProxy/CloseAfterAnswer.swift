import Foundation
import HTTPTypes
package import NIOCore
package import NIOHTTPTypes

/// Ends the connection once an answer marked `Connection: close` has gone out. Hummingbird
/// closes for a request that asks it; this is for answers that decide it themselves: a final
/// answer to an `Expect: 100-continue` request whose body was never asked for
/// (``ExpectContinue``), and the refusal of `CONNECT`, which the HTTP/1 encoder sends without
/// a length (it frames every answer to `CONNECT` as a tunnel's), so only the connection's end
/// can mark where it stops.
///
/// Goes after the HTTP/1 decoder and before ``ExpectContinue``, one per connection, on the
/// connection's event loop only.
package final class CloseAfterAnswer: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private var closing = false

    /// A handler for one connection.
    package init() {}

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            closing = Self.saysClose(head.headerFields)
            context.write(data, promise: promise)
        case .end where closing:
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    /// `close` among the `Connection` field's options (RFC 9110 §7.6.1).
    static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}

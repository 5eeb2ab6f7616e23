import HTTPTypes
import MultiAuthCore
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` (RFC 9110 §10.1.1), and ends the connection after an answer
/// marked `Connection: close`.
///
/// A client that asks waits for `100 Continue` before it sends the body (curl waits a second,
/// then sends anyway). The responder says when the head has passed and the body is wanted
/// (``InboundBody/proceed()``); the `100` goes out then. When the final answer comes first
/// (the head was refused), the body the client holds back is never read: the answer gets
/// `Connection: close` and the connection ends with it, so no half-sent body is taken for the
/// next request.
///
/// Hummingbird closes for a request that asks it; the connection is also closed here for
/// answers that decide it themselves: that final answer, and the refusal of `CONNECT`, which
/// the HTTP/1 encoder sends without a length (it frames every answer to `CONNECT` as a
/// tunnel's), so only the connection's end can mark where it stops.
extension ExchangeGuards {
    /// The body is wanted: the `100 Continue` a waiting client asked for goes out, once.
    func proceed(_ context: ChannelHandlerContext) {
        guard expectation == .expecting else { return }
        expectation = .continued
        bodyReleased(context)
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    /// `head` (`data` as it came) goes out, marked `Connection: close` when it refuses a body
    /// held back for a `100 Continue`.
    func answerBegins(_ head: HTTPResponse, _ data: NIOAny, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard expectation == .expecting else {
            closing = Self.saysClose(head.headerFields)
            return context.write(data, promise: promise)
        }
        var head = head
        head.headerFields[.connection] = "close"
        closing = true
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    func answerEnds(_ data: NIOAny, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        expectation = .idle
        nextHead(context)
        guard closing else { return context.write(data, promise: promise) }
        let written = context.writeAndFlush(data)
        written.cascade(to: promise)
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// `close` among the `Connection` field's options (RFC 9110 section 7.6.1), found without a
    /// lowercased copy of each.
    static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.utf8.split(separator: UInt8(ascii: ",")).contains { option in
                let trimmed = option.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
                return trimmed.count == 5 && zip(trimmed.reversed(), "close".utf8).allSatisfy { $0 | 0x20 == $1 }
            }
        }
    }

    /// `Expect: 100-continue` on a request that has a body to hold back (RFC 9110 §10.1.1:
    /// the expectation means nothing without one).
    static func expectsContinue(_ head: HTTPRequest) -> Bool {
        head.headerFields.firstValue(.expect)?.lowercased() == "100-continue" && head.announcesBody
    }
}

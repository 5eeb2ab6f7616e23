package import Hummingbird
package import MultiAuthCore
import NIOCore

/// The body a decision sends upstream (``Forwarding/Decision/forward(_:body:rejectionCheck:)``),
/// and the spool file it came from, removed once the exchange ends.
package struct UpstreamBody: Sendable {
    /// The bytes to send: held, a file, or a stream (an `aws-chunked` encoding).
    package let body: OutgoingBody
    let spool: SpooledBody?

    /// `body`, read from `spool` when there is one.
    package init(_ body: OutgoingBody, spool: SpooledBody? = nil) {
        self.body = body
        self.spool = spool
    }

    /// No body.
    package static let none = UpstreamBody(.empty)
}

/// A request's body as a decision receives it: read as it arrives (the client's connection
/// reads on only as the decision takes it in), inside the request as Hummingbird shapes it.
package struct InboundBody: Sendable {
    /// The request, its body streaming in.
    package let request: Request
    let channel: any Channel

    /// Says the head has passed: a client waiting for `100 Continue` gets it now (``ExchangeGuards``).
    package func proceed() {
        channel.triggerUserOutboundEvent(ExchangeGuards.Proceed(), promise: nil)
    }
}

import Hummingbird
import InboundAuthorization
import MultiAuthHummingbird
import NIOCore

/// The request context of the proxy and the gateway: the verified principal (the gateway's),
/// and the client's connection, so a responder can say when it wants the request's body
/// (``ExpectContinue``).
package struct ForwardingContext: MultiAuthRequestContext {
    /// Hummingbird's own per-request storage.
    package var coreContext: CoreRequestContextStorage
    /// Who sent the request, once verified (the gateway's); nil on the proxy.
    package var principal: Principal?
    let channel: any Channel

    /// Creates the context of one request.
    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The head has passed: a client waiting for `100 Continue` may send the body now.
    func proceedWithBody() {
        channel.triggerUserOutboundEvent(ExpectContinue.Proceed(), promise: nil)
    }
}

import Hummingbird
import InboundAuthorization
import MultiAuthHummingbird

/// The verifying gateway: ``InboundAuthorizationMiddleware`` in front of an
/// ``UpstreamForwarder``. Only verified requests reach the upstream.
public struct GatewayResponder: HTTPResponder {
    let middleware: InboundAuthorizationMiddleware<MultiAuthContext>
    let forwarder: UpstreamForwarder

    /// Creates the gateway's responder.
    public init(authorizer: InboundAuthorizer, forwarder: UpstreamForwarder, maxBodySize: Int = 10 << 20) {
        middleware = InboundAuthorizationMiddleware(authorizer, maxBodySize: maxBodySize)
        self.forwarder = forwarder
    }

    /// Verifies, then forwards.
    public func respond(to request: Request, context: MultiAuthContext) async throws -> Response {
        try await middleware.handle(request, context: context) { request, context in
            await forwarder.forward(request, principal: context.principal, logger: context.logger)
        }
    }
}

import HTTPTypes
import Hummingbird
import InboundAuthorization
import Logging
import MultiAuthCore
import MultiAuthHummingbird

/// The verifying gateway: an ``InboundAuthorization/InboundAuthorizer`` in front of an
/// ``UpstreamForwarder``. Only verified requests reach the upstream.
///
/// A signed request is first checked on its head (authorization, key id, scope, date window,
/// announced length): one that cannot pass is refused before its body is read. Otherwise the
/// body is received (in memory up to the forwarder's spool threshold, else into a 0600 spool
/// file) and hashed as it arrives, so a body of any size up to the limit is checked without
/// being held whole; the request goes on only once its signature and body hash are verified.
package struct GatewayResponder: HTTPResponder {
    let authorizers: CurrentAuthorizer
    let forwarder: UpstreamForwarder
    let metrics: ServerMetrics?

    /// Creates the gateway's responder; `forwarder`'s body limit is the gateway's. Each
    /// request is decided by the authorizer current when it arrived; each decision is counted
    /// in `metrics`.
    package init(authorizers: CurrentAuthorizer, forwarder: UpstreamForwarder, metrics: ServerMetrics? = nil) {
        self.authorizers = authorizers
        self.forwarder = forwarder
        self.metrics = metrics
    }

    /// Counts a decision on `head` under the mode its credential belongs to.
    func count(_ head: HTTPRequest, by authorizer: InboundAuthorizer, passed: Bool) {
        metrics?.record(mode: authorizer.presented(head).mode?.rawValue ?? "NONE", passed: passed)
    }

    /// Verifies, then forwards.
    package func respond(to request: Request, context: ForwardingContext) async throws -> Response {
        if let refusal = UpstreamForwarder.refusal(of: request.head) { return UpstreamForwarder.response(refusal) }
        let authorizer = authorizers.current
        guard authorizer.needsBody(request.head) else {
            let decision = await authorizer.authorize(request.head, bodySHA256: nil)
            count(request.head, by: authorizer, passed: (try? decision.get()) != nil)
            switch decision {
            case .failure(let rejection): return Response(rejection, logger: context.logger)
            case .success(let principal):
                context.proceedWithBody()
                return await forwarder.forward(request, principal: principal, logger: context.logger)
            }
        }
        // Everything the head decides is decided before a byte of the body is read.
        if let rejection = await authorizer.rejectionBeforeBody(request.head) {
            count(request.head, by: authorizer, passed: false)
            return Response(rejection, logger: context.logger)
        }
        context.proceedWithBody()
        let body: UpstreamForwarder.ReceivedBody
        do { body = try await forwarder.receive(request, hashing: true) } catch { return UpstreamForwarder.refusal(error, logger: context.logger) }
        let decision = await authorizer.authorize(request.head, bodySHA256: body.sha256)
        count(request.head, by: authorizer, passed: (try? decision.get()) != nil)
        switch decision {
        case .failure(let rejection):
            body.discard()
            return Response(rejection, logger: context.logger)
        case .success(let principal):
            return await forwarder.forward(request.head, body: body, principal: principal, logger: context.logger)
        }
    }
}

extension GatewayResponder {
    /// Inline forwarding (``InlineForwarding``): a body-less request the authorizer can decide
    /// at once (SigV4/SigV4a against a table of credentials, API keys, JWTs whose key is held
    /// and fresh, a missing credential) is decided on the event loop; a JWT whose key set is
    /// due for a fetch keeps the full path. A request with a body is verified as on the full
    /// path: its head first, then its body's hash as it is received. Nil for an https
    /// upstream without `tls`.
    package func inlineForwarding(timeout: Double, tls: UpstreamTLS? = nil, logger: Logger) -> InlineForwarding? {
        InlineForwarding(forwarder: forwarder, timeout: timeout, tls: tls, logger: logger, decideWithBody: { [self] head, inbound in
            await verified(head, body: inbound, logger: logger)
        }) { [self] head in
            let authorizer = authorizers.current
            switch authorizer.authorizeWithoutSuspending(head) {
            case nil: return .fullPath
            case .failure(let rejection):
                count(head, by: authorizer, passed: false)
                return rejected(rejection, logger: logger)
            case .success(let principal):
                count(head, by: authorizer, passed: true)
                return .forward(forwarder.upstreamRequest(for: head, principal: principal))
            }
        }
    }

    /// Verifies a request with a body (its head before a byte of the body is read), then
    /// forwards it with the body received.
    private func verified(_ head: HTTPRequest, body inbound: InboundBody, logger: Logger) async -> InlineForwarding.Decision {
        let authorizer = authorizers.current
        let hashing = authorizer.needsBody(head)
        var principal: Principal?
        if hashing {
            if let rejection = await authorizer.rejectionBeforeBody(head) {
                count(head, by: authorizer, passed: false)
                return rejected(rejection, logger: logger)
            }
        } else {
            let decision = await authorizer.authorize(head, bodySHA256: nil)
            count(head, by: authorizer, passed: (try? decision.get()) != nil)
            switch decision {
            case .failure(let rejection): return rejected(rejection, logger: logger)
            case .success(let verified): principal = verified
            }
        }
        inbound.proceed()
        let body: UpstreamForwarder.ReceivedBody
        do throws(BodyError) { body = try await forwarder.receive(inbound.request, hashing: hashing) } catch {
            let refusal = UpstreamForwarder.bodyRefusal(error, logger: logger)
            return .answer(refusal.head, body: refusal.body)
        }
        if hashing {
            let decision = await authorizer.authorize(head, bodySHA256: body.sha256)
            count(head, by: authorizer, passed: (try? decision.get()) != nil)
            switch decision {
            case .failure(let rejection):
                body.discard()
                return rejected(rejection, logger: logger)
            case .success(let verified): principal = verified
            }
        }
        return .forward(forwarder.upstreamRequest(for: head, principal: principal), body: UpstreamBody(body.body, spool: body.spool))
    }

    private func rejected(_ rejection: InboundRejection, logger: Logger) -> InlineForwarding.Decision {
        logger.info("request rejected", metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.reason)"])
        return .answer(rejection.responseHead, body: rejection.body)
    }
}

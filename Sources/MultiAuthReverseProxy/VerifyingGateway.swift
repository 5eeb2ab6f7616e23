import HTTPTypes
package import Logging
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthInboundAuthorization

/// The verifying gateway: an ``MultiAuthInboundAuthorization/InboundAuthorizer`` in front of an
/// upstream. Only verified requests reach it, with the verified principal added
/// (``UpstreamForwarder``).
///
/// A body-less request, or one whose small body was gathered in memory, that the authorizer
/// can decide at once (SigV4/SigV4a against a table of credentials, API keys, JWTs whose key
/// is held and fresh, a missing credential) is decided on the event loop; a JWT whose key set
/// is due for a fetch waits for it in a task. A signed request with a larger body is first checked on its head (authorization, key id, scope, date
/// window, announced length): one that cannot pass is refused before its body is read.
/// Otherwise the body is received (in memory up to the forwarder's spool threshold, else into
/// a 0600 spool file) and hashed as it arrives, so a body of any size up to the limit is
/// checked without being held whole; the request goes on only once its signature and body
/// hash are verified.
package struct VerifyingGateway: Sendable {
    let authorizers: CurrentAuthorizer
    let forwarder: UpstreamForwarder
    let metrics: ServerMetrics?

    /// A gateway to `forwarder`'s upstream, whose body limit is the gateway's. Each request is
    /// decided by the authorizer current when it arrived; each decision is counted in `metrics`.
    package init(authorizers: CurrentAuthorizer, forwarder: UpstreamForwarder, metrics: ServerMetrics? = nil) {
        self.authorizers = authorizers
        self.forwarder = forwarder
        self.metrics = metrics
    }

    /// Counts a decision on `head` under the mode its credential belongs to.
    func count(_ head: HTTPRequest, by authorizer: InboundAuthorizer, passed: Bool) {
        metrics?.record(mode: authorizer.presented(head).mode?.rawValue ?? "NONE", passed: passed)
    }

    /// The gateway's route to its upstream, over `tls` for an https upstream.
    package func route(tls: UpstreamTLS, logger: Logger) -> Forwarding.Route {
        Forwarding.Route(forwarder: forwarder, tls: tls, decideWithBody: { [self] head, inbound in
            await verified(head, body: inbound, logger: logger)
        }, decideWithBytes: { [self] head, bytes in
            let authorizer = authorizers.current
            let sha256 = authorizer.needsBody(head) ? SHA256Hasher.hash(bytes).hex : nil
            let body = UpstreamForwarder.ReceivedBody(body: .bytes(bytes), spool: nil, sha256: sha256)
            guard let decision = authorizer.authorizeWithoutSuspending(head, bodySHA256: sha256) else {
                return .later { [self] in
                    carried(await authorizer.authorize(head, bodySHA256: sha256), for: head, by: authorizer, body: body, logger: logger)
                }
            }
            return carried(decision, for: head, by: authorizer, body: body, logger: logger)
        }) { [self] head in
            let authorizer = authorizers.current
            guard let decision = authorizer.authorizeWithoutSuspending(head) else {
                return .later { [self] in
                    let decision = await authorizer.authorize(head, bodySHA256: nil)
                    return carried(decision, for: head, by: authorizer, body: .none, logger: logger)
                }
            }
            return carried(decision, for: head, by: authorizer, body: .none, logger: logger)
        }
    }

    /// Verifies a request with a body (its head before a byte of the body is read), then
    /// forwards it with the body received.
    private func verified(_ head: HTTPRequest, body inbound: InboundBody, logger: Logger) async -> Forwarding.Decision {
        let authorizer = authorizers.current
        let hashing = authorizer.needsBody(head)
        if hashing, let rejection = await authorizer.rejectionBeforeBody(head) {
            count(head, by: authorizer, passed: false)
            return rejected(rejection, logger: logger)
        }
        var early: Result<Principal, InboundRejection>?
        if !hashing {
            let decision = await authorizer.authorize(head, bodySHA256: nil)
            if case .failure = decision { return carried(decision, for: head, by: authorizer, body: .none, logger: logger) }
            early = decision
        }
        inbound.proceed()
        let body: UpstreamForwarder.ReceivedBody
        do throws(BodyError) { body = try await forwarder.receive(inbound.request, hashing: hashing) } catch {
            let refusal = UpstreamForwarder.bodyRefusal(error, logger: logger)
            return .answer(refusal.head, body: refusal.body)
        }
        let decision = if let early { early } else { await authorizer.authorize(head, bodySHA256: body.sha256) }
        return carried(decision, for: head, by: authorizer, body: body, logger: logger)
    }

    /// Counts `decision` and forwards `head` with `body`, or answers the rejection (and drops the body).
    private func carried(
        _ decision: Result<Principal, InboundRejection>, for head: HTTPRequest, by authorizer: InboundAuthorizer,
        body: UpstreamForwarder.ReceivedBody, logger: Logger
    ) -> Forwarding.Decision {
        count(head, by: authorizer, passed: (try? decision.get()) != nil)
        switch decision {
        case .failure(let rejection):
            body.discard()
            return rejected(rejection, logger: logger)
        case .success(let principal):
            return .forward(forwarder.upstreamRequest(for: head, principal: principal), body: UpstreamBody(body.body, spool: body.spool))
        }
    }

    private func rejected(_ rejection: InboundRejection, logger: Logger) -> Forwarding.Decision {
        logger.info("request rejected", metadata: ["status": "\(rejection.status.code)", "reason": "\(rejection.reason)"])
        return .answer(rejection.responseHead, body: rejection.body)
    }
}

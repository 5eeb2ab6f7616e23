import HTTPTypes
package import Logging
package import MultiAuthAuthorization
package import MultiAuthAWSClient
package import MultiAuthCore
import MultiAuthHTTP
import MultiAuthSigV4

/// The signing proxy: every request received goes to the upstream authorized in the chosen
/// mode (SigV4 through the credential chain, an API key, a token), so a client that cannot
/// sign (curl, a browser, a GraphQL IDE) can reach a protected API through it.
package struct SigningProxy: Sendable {
    let forwarder: UpstreamForwarder
    let authorizer: any RequestAuthorizer
    let clock: SigningClock
    let metrics: ServerMetrics?
    let mode: String
    let sites: CrossSitePolicy

    /// A proxy to `upstream` whose requests `authorizer` authorizes, at `clock`'s signing time
    /// (a request is sent once: not retried behind the client's back). Bodies
    /// over `spoolThreshold` bytes, or without a `Content-Length`, are spooled to a file (pass
    /// 0 for an authorizer that streams files as `aws-chunked`). Each authorization is counted
    /// in `metrics` under `mode`. With `replacingClientSignature`, the client's own
    /// `Authorization` and signing fields (``clientSignatureFields``) never reach the
    /// upstream: the proxy's signature replaces them. `sites` says which hosts and origins
    /// may use it.
    package init(
        upstream: String, authorizer: any RequestAuthorizer, clock: SigningClock, maxBodySize: Int = 10 << 20,
        spoolThreshold: Int = 1 << 20, metrics: ServerMetrics? = nil, mode: String = "NONE", replacingClientSignature: Bool = false,
        sites: CrossSitePolicy = CrossSitePolicy(), spoolBudget: SpoolBudget? = nil
    ) throws(ReverseProxyError) {
        self.sites = sites
        self.authorizer = authorizer
        self.clock = clock
        self.metrics = metrics
        self.mode = mode
        forwarder = try UpstreamForwarder(
            upstream: upstream, maxBodySize: maxBodySize, spoolThreshold: spoolThreshold,
            dropping: replacingClientSignature ? Self.clientSignatureFields : [], spoolBudget: spoolBudget)
    }

    /// A client's signing fields, dropped before the proxy signs: a stale `X-Amz-Security-Token`
    /// or `X-Amz-Date` would otherwise be signed along and make the signature the client's.
    package static let clientSignatureFields: Set<String> = [
        "authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "x-amz-region-set",
    ]
}

extension SigningProxy {
    /// The proxy's route to its upstream, over `tls` for an https upstream. A request without
    /// a body, or with a small one held in memory, is authorized at once for a fixed API key or
    /// token, or SigV4 with fresh credentials, else after one asynchronous authorization; a
    /// request with a larger body once its body is received (in memory or spooled). A rejection
    /// of the signing time (read whole) teaches the client the server's clock and sends the
    /// request once more, authorized again. An authorization that fails is answered 502.
    package func route(tls: UpstreamTLS, logger: Logger) -> Forwarding.Route {
        let iam = authorizer as? IAMAuthorizer
        // These authorize a request by its head alone, whatever its body.
        let headOnly = authorizer is APIKeyAuthorizer || authorizer is TokenAuthorizer || authorizer is NoAuthorizer
        return Forwarding.Route(forwarder: forwarder, tls: tls, decideWithBody: { [self] head, _, inbound in
            if let refusal = sites.refusal(head) { return refusal }
            inbound.proceed()
            let received: UpstreamForwarder.ReceivedBody
            do throws(BodyError) { received = try await forwarder.receive(inbound.request, hashing: false) } catch {
                let refusal = UpstreamForwarder.bodyRefusal(error, logger: logger)
                return .answer(refusal.head, body: refusal.body)
            }
            let request = forwarder.upstreamRequest(for: head, principal: nil)
            return await authorized(request, body: received, correctingClock: true, logger: logger)
        }, decideWithBytes: { [self] head, _, bytes in
            if let refusal = sites.refusal(head) { return refusal }
            let request = forwarder.upstreamRequest(for: head, principal: nil)
            let received = UpstreamForwarder.ReceivedBody(body: .bytes(bytes), spool: nil, sha256: nil)
            return authorizedAtOnce(request, received: received, iam: iam, headOnly: headOnly, logger: logger)
        }) { [self] head, _ in
            if let refusal = sites.refusal(head) { return refusal }
            let request = forwarder.upstreamRequest(for: head, principal: nil)
            return authorizedAtOnce(request, received: .none, iam: iam, headOnly: true, logger: logger)
        }
    }

    /// `request` with `received` (no body, or bytes in memory) authorized on the event loop
    /// when that needs no waiting (`headOnly`: the authorizer does not look at bodies; `iam`:
    /// SigV4 with fresh cached credentials, at the client's corrected time), else after one
    /// asynchronous authorization.
    private func authorizedAtOnce(
        _ request: HTTPRequest, received: UpstreamForwarder.ReceivedBody, iam: IAMAuthorizer?, headOnly: Bool, logger: Logger
    ) -> Forwarding.Decision {
        let bytes: [UInt8] = if case .bytes(let bytes) = received.body { bytes } else { [] }
        let body = UpstreamBody(received.body)
        if headOnly, let outcome = authorizer.authorizeWithoutSuspending(request) {
            metrics?.record(mode: mode, passed: (try? outcome.get()) != nil)
            switch outcome {
            case .success(let request): return .forward(request, body: body)
            case .failure(let error): return failed(error, logger: logger)
            }
        }
        if let iam, let outcome = iam.authorizeWithoutSuspending(request, body: bytes, at: clock.signingDate()) {
            metrics?.record(mode: mode, passed: (try? outcome.get()) != nil)
            switch outcome {
            case .success(let signed): return forwardLearningClock(signed, body: body, unsigned: request, received: received, logger: logger)
            case .failure(let error): return failed(error, logger: logger)
            }
        }
        return .later { await authorized(request, body: received, correctingClock: true, logger: logger) }
    }

    private func authorized(
        _ request: HTTPRequest, body: UpstreamForwarder.ReceivedBody, correctingClock: Bool, logger: Logger
    ) async -> Forwarding.Decision {
        let signed: AuthorizedRequest
        do throws(AuthorizationError) {
            signed = try await authorizer.authorize(request, body: body.body, at: clock.signingDate())
        } catch {
            body.discard()
            metrics?.record(mode: mode, passed: false)
            return failed(error, logger: logger)
        }
        metrics?.record(mode: mode, passed: true)
        let upstreamBody = UpstreamBody(signed.body, spool: body.spool)
        guard correctingClock else { return .forward(signed.request, body: upstreamBody) }
        return forwardLearningClock(signed.request, body: upstreamBody, unsigned: request, received: body, logger: logger)
    }

    /// Forwards `signed`; a rejection of its signing time teaches the client the server's
    /// clock, and `unsigned` is authorized again, once, with the same body.
    private func forwardLearningClock(
        _ signed: HTTPRequest, body: UpstreamBody = .none, unsigned request: HTTPRequest, received: UpstreamForwarder.ReceivedBody,
        logger: Logger
    ) -> Forwarding.Decision {
        .forward(signed, body: body) { [self] head, answer in
            guard clock.learn(from: ReceivedResponse(head: head, body: answer)) else { return nil }
            return .later { await authorized(request, body: received, correctingClock: false, logger: logger) }
        }
    }

    /// The answer when the request could not be authorized: 502, the reason logged.
    private func failed(_ error: AuthorizationError, logger: Logger) -> Forwarding.Decision {
        logger.warning("upstream failed", metadata: ["error": "\(error)"])
        return Forwarding.answer(.badGateway, "BadGatewayException", "Bad Gateway")
    }
}

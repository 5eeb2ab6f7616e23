package import HTTPTypes
package import Logging
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthInboundAuthorization

/// The verifying gateway: an ``MultiAuthInboundAuthorization/InboundAuthorizer`` in front of an
/// upstream. Only verified requests reach it, with the verified principal added
/// (``UpstreamForwarder``). With an API definition (``APIGatewayPolicy``), each request is
/// first matched to its route, which names its authorization and its upstream.
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
    let api: CurrentAPIPolicy?
    /// As an auth service (`multiauth authz`): how the asking proxy names the request decided
    /// on. Allowed requests are then answered 200 with the identity fields instead of sent on.
    let authz: AuthzContract?

    /// A gateway to `forwarder`'s upstream, whose body limit is the gateway's. Each request is
    /// decided by the authorizer current when it arrived; each decision is counted in
    /// `metrics`. With `api`, requests are routed, authorized and sent as its definition says.
    /// With `authz`, it is the auth service of a proxy: nothing is forwarded.
    package init(
        authorizers: CurrentAuthorizer, forwarder: UpstreamForwarder, metrics: ServerMetrics? = nil, api: CurrentAPIPolicy? = nil,
        authz: AuthzContract? = nil
    ) {
        self.authorizers = authorizers
        self.forwarder = forwarder
        self.metrics = metrics
        self.api = api
        self.authz = authz
    }

    /// The request decided on: `head` itself, or for an auth service the client's request the
    /// proxy asks about (a proxy that does not say is answered 400).
    private func decided(_ head: HTTPRequest, logger: Logger) -> Result<HTTPRequest, AnswerNow> {
        guard let authz else { return .success(head) }
        return authz.original(of: head).mapError { AnswerNow(decision: rejected($0, route: nil, logger: logger)) }
    }

    /// The body hash of a request whose body did not come: none for a gateway (an empty
    /// body), the contract's for an auth service.
    private func unseenBodySHA256(_ head: HTTPRequest) -> Result<String?, InboundRejection> {
        authz?.bodySHA256(unseen: head) ?? .success(nil)
    }

    /// An auth service's denial body and status, for a proxy that passes on neither (nginx).
    package static let errorBodyField = HTTPField.Name("X-MultiAuth-Error-Body")!
    package static let statusField = HTTPField.Name("X-MultiAuth-Status")!

    /// An answer made without the upstream (a refusal, no route): for an auth service, a
    /// refusal also carries its body and status in fields.
    private func answered(_ answer: AnswerNow) -> Forwarding.Decision {
        guard authz != nil, case .answer(var head, let body) = answer.decision, head.status.code >= 300 else { return answer.decision }
        head.headerFields[Self.errorBodyField] = String(decoding: body, as: UTF8.self)
        head.headerFields[Self.statusField] = String(head.status.code)
        return .answer(head, body: body)
    }

    /// What an auth service answers a request that may pass: 200, with the identity fields a
    /// proxy copies to the upstream (`auth_request_set`, `copy_headers`, `authResponseHeaders`),
    /// and a JWT's string claims as `X-MultiAuth-Claim-NAME` (see ``claimFields(_:)``).
    private static func allowed(_ principal: Principal?) -> Forwarding.Decision {
        var fields = HTTPFields()
        if let principal {
            fields[UpstreamForwarder.principalField] = principal.name
            fields[UpstreamForwarder.modeField] = principal.mode.rawValue
            fields.append(contentsOf: claimFields(principal.claims))
        }
        return .answer(HTTPResponse(status: .ok, headerFields: fields), body: [])
    }

    /// A JWT's string claims as fields for a proxy to map (nginx: `auth_request_set $email
    /// $upstream_http_x_multiauth_claim_email`): a name's characters other than letters,
    /// digits, `-` and `_` become `-` (`cognito:username` is `X-MultiAuth-Claim-cognito-username`);
    /// a value with a control character, or over 1 KiB, is left out; at most 32, by name.
    static func claimFields(_ claims: [String: String]) -> [HTTPField] {
        var fields: [HTTPField] = []
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) where fields.count < 32 && value.utf8.count <= 1024 {
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { continue }
            let word = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-" })
            guard !word.isEmpty, let field = HTTPField.Name("X-MultiAuth-Claim-" + word) else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        return fields
    }

    /// How one request is decided and sent: by whom (nil: anyone may call), what else an
    /// allowed principal must satisfy, and how it goes upstream.
    struct Plan: Sendable {
        let authorizer: InboundAuthorizer?
        /// A decision made elsewhere (a request authorizer): what its cache says without
        /// waiting (nil: ask), and the asking. Used when `authorizer` is nil.
        var external: External? = nil
        /// The API route's name (`GET /pets/{id}`), for metrics and logs.
        var routeName: String? = nil
        let admit: @Sendable (HTTPRequest, Principal?) -> UsageLimits.Admission
        let forward: @Sendable (HTTPRequest, Principal?, UpstreamBody) -> Forwarding.Decision

        struct External: Sendable {
            let cached: @Sendable (HTTPRequest) -> Result<Principal?, InboundRejection>?
            let decide: @Sendable (HTTPRequest) async -> Result<Principal?, InboundRejection>
        }
    }

    /// The plan for `head` from `client`, or the answer that ends it at once (no route, a CORS preflight).
    func plan(_ head: HTTPRequest, from client: ClientConnection) -> Result<Plan, AnswerNow> {
        if let api { return api.current.plan(head, from: client, forwarder: forwarder) }
        let forwarder = forwarder
        return .success(Plan(authorizer: authorizers.current, admit: { _, _ in .pass }) { head, principal, body in
            .forward(forwarder.upstreamRequest(for: head, principal: principal), body: body)
        })
    }

    /// The request decided on (``decided(_:logger:)``) and its plan, or the answer that ends
    /// it at once: what every way of deciding starts with.
    private func planned(_ asked: HTTPRequest, from client: ClientConnection, logger: Logger) -> Result<(HTTPRequest, Plan), AnswerNow> {
        decided(asked, logger: logger).flatMap { head in
            plan(head, from: client).map { (head, $0) }.mapError { AnswerNow(decision: answered($0)) }
        }
    }

    /// An answer made without the upstream.
    struct AnswerNow: Error {
        let decision: Forwarding.Decision
    }

    /// Counts a decision on `head` under the mode its credential belongs to.
    func count(_ head: HTTPRequest, by authorizer: InboundAuthorizer?, passed: Bool) {
        metrics?.record(mode: authorizer?.presented(head).mode?.rawValue ?? "NONE", passed: passed)
    }

    /// The gateway's route to its upstream, over `tls` for an https upstream.
    package func route(tls: UpstreamTLS, logger: Logger) -> Forwarding.Route {
        Forwarding.Route(forwarder: forwarder, tls: tls, decideWithBody: { [self] asked, client, inbound in
            switch planned(asked, from: client, logger: logger) {
            case .failure(let answer): return answer.decision
            case .success(let (head, plan)): return await verified(head, body: inbound, plan: plan, logger: logger)
            }
        }, decideWithBytes: { [self] asked, client, bytes in
            decide(asked, bytes: bytes, from: client, logger: logger)
        }) { [self] asked, client in
            decideWithoutBody(asked, from: client, logger: logger)
        }
    }

    /// An auth service's answer on `asked`, whose body came whole with the question (`bytes`)
    /// or not at all (nil): 200 with the identity fields, or the refusal. What Envoy's gRPC
    /// `ext_authz` asks (`MultiAuthExtAuthzGRPC`).
    package func check(_ asked: HTTPRequest, body bytes: [UInt8]?, from client: ClientConnection, logger: Logger) async -> (HTTPResponse, [UInt8]) {
        var decision = bytes.map { decide(asked, bytes: $0, from: client, logger: logger) } ?? decideWithoutBody(asked, from: client, logger: logger)
        while true {
            switch decision {
            case .answer(let head, let body): return (head, body)
            case .later(let next): decision = await next()
            case .forward:
                // An auth service's plans answer instead of forwarding; should one not, the
                // check fails closed rather than taking the process down.
                logger.error("an auth service was asked to forward a request")
                let refusal = InboundRejection(status: .internalServerError, errorType: "InternalServerErrorException", message: "Internal server error", reason: "forward in an auth service")
                return (refusal.responseHead, refusal.body)
            }
        }
    }

    /// The decision on a request whose body was gathered in memory.
    private func decide(_ asked: HTTPRequest, bytes: [UInt8], from client: ClientConnection, logger: Logger) -> Forwarding.Decision {
        let (head, plan): (HTTPRequest, Plan)
        switch planned(asked, from: client, logger: logger) {
        case .failure(let answer): return answer.decision
        case .success(let found): (head, plan) = found
        }
        let sha256 = plan.authorizer?.needsBody(head) == true ? SHA256Hasher.hash(bytes).hex : nil
        let body = UpstreamForwarder.ReceivedBody(body: .bytes(bytes), spool: nil, sha256: sha256)
        guard let decision = Self.decideWithoutSuspending(head, plan: plan, bodySHA256: sha256) else {
            return .later { [self] in carried(await Self.decide(head, plan: plan, bodySHA256: sha256), for: head, plan: plan, body: body, logger: logger) }
        }
        return carried(decision, for: head, plan: plan, body: body, logger: logger)
    }

    /// The decision on a request without a body (or, for an auth service, whose body did not come).
    private func decideWithoutBody(_ asked: HTTPRequest, from client: ClientConnection, logger: Logger) -> Forwarding.Decision {
        let (head, plan): (HTTPRequest, Plan)
        switch planned(asked, from: client, logger: logger) {
        case .failure(let answer): return answer.decision
        case .success(let found): (head, plan) = found
        }
        let sha256: String?
        switch unseenBodySHA256(head) {
        case .failure(let rejection):
            count(head, by: plan.authorizer, passed: false)
            return rejected(rejection, route: plan.routeName, logger: logger)
        case .success(let hash): sha256 = hash
        }
        guard let decision = Self.decideWithoutSuspending(head, plan: plan, bodySHA256: sha256) else {
            return .later { [self] in carried(await Self.decide(head, plan: plan, bodySHA256: sha256), for: head, plan: plan, body: .none, logger: logger) }
        }
        return carried(decision, for: head, plan: plan, body: .none, logger: logger)
    }

    /// The plan's authorizer's decision, when it needs no wait; a public route passes at once.
    private static func decideWithoutSuspending(_ head: HTTPRequest, plan: Plan, bodySHA256: String?) -> Result<Principal?, InboundRejection>? {
        guard let authorizer = plan.authorizer else { return plan.external.map { $0.cached(head) } ?? .success(nil) }
        return authorizer.authorizeWithoutSuspending(head, bodySHA256: bodySHA256).map { $0.map(Optional.some) }
    }

    static func decide(_ head: HTTPRequest, plan: Plan, bodySHA256: String?) async -> Result<Principal?, InboundRejection> {
        guard let authorizer = plan.authorizer else { return await plan.external?.decide(head) ?? .success(nil) }
        return await authorizer.authorize(head, bodySHA256: bodySHA256).map(Optional.some)
    }

    /// Verifies a request with a body (its head before a byte of the body is read), then
    /// forwards it with the body received.
    private func verified(_ head: HTTPRequest, body inbound: InboundBody, plan: Plan, logger: Logger) async -> Forwarding.Decision {
        let hashing = plan.authorizer?.needsBody(head) == true
        if hashing, let rejection = await plan.authorizer?.rejectionBeforeBody(head) {
            count(head, by: plan.authorizer, passed: false)
            return rejected(rejection, route: plan.routeName, logger: logger)
        }
        var early: Result<Principal?, InboundRejection>?
        if !hashing {
            let decision = await Self.decide(head, plan: plan, bodySHA256: nil)
            if case .failure = decision { return carried(decision, for: head, plan: plan, body: .none, logger: logger) }
            early = decision
        }
        inbound.proceed()
        let body: UpstreamForwarder.ReceivedBody
        do throws(BodyError) { body = try await forwarder.receive(inbound.request, hashing: hashing) } catch {
            let refusal = UpstreamForwarder.bodyRefusal(error, logger: logger)
            return .answer(refusal.head, body: refusal.body)
        }
        let decision = if let early { early } else { await Self.decide(head, plan: plan, bodySHA256: body.sha256) }
        return carried(decision, for: head, plan: plan, body: body, logger: logger)
    }

    /// Counts `decision` and forwards `head` with `body`, or answers the rejection (and drops the body).
    private func carried(
        _ decision: Result<Principal?, InboundRejection>, for head: HTTPRequest, plan: Plan, body: UpstreamForwarder.ReceivedBody, logger: Logger
    ) -> Forwarding.Decision {
        var decision = decision
        if case .success(let principal) = decision {
            switch plan.admit(head, principal) {
            case .pass: break
            case .refuse(let refusal): decision = .failure(refusal)
            case .later(let check):
                let allowed = decision
                return .later { [self] in
                    let refusal = await check()
                    return finished(refusal.map { .failure($0) } ?? allowed, for: head, plan: plan, body: body, logger: logger)
                }
            }
        }
        return finished(decision, for: head, plan: plan, body: body, logger: logger)
    }

    /// Counts the final `decision` and carries it out.
    private func finished(
        _ decision: Result<Principal?, InboundRejection>, for head: HTTPRequest, plan: Plan, body: UpstreamForwarder.ReceivedBody, logger: Logger
    ) -> Forwarding.Decision {
        count(head, by: plan.authorizer, passed: (try? decision.get()) != nil)
        if let route = plan.routeName { countRoute(route, head: head, plan: plan, decision: decision) }
        switch decision {
        case .failure(let rejection):
            body.discard()
            return rejected(rejection, route: plan.routeName, logger: logger)
        case .success(let principal):
            if authz != nil {
                body.discard()
                return Self.allowed(principal)
            }
            return plan.forward(head, principal, UpstreamBody(body.body, spool: body.spool))
        }
    }

    private func rejected(_ rejection: InboundRejection, route: String?, logger: Logger) -> Forwarding.Decision {
        var metadata: Logger.Metadata = ["status": "\(rejection.status.code)", "reason": "\(rejection.reason)"]
        if let route { metadata["route"] = "\(route)" }
        logger.info("request rejected", metadata: metadata)
        // nginx's auth_request passes on a denial's status (401, 403) but not its body: for an
        // auth service, the body goes in a field its config returns (docs/authz.md), as does a
        // status it cannot pass.
        return answered(AnswerNow(decision: .answer(rejection.responseHead, body: rejection.body)))
    }

    /// An API route's decision: allowed, denied, throttled or over its quota.
    private func countRoute(_ route: String, head: HTTPRequest, plan: Plan, decision: Result<Principal?, InboundRejection>) {
        let mode = (try? decision.get())??.mode.rawValue ?? plan.authorizer?.presented(head).mode?.rawValue ?? (plan.external == nil ? "NONE" : "AWS_LAMBDA")
        let result = switch decision {
        case .success: "allowed"
        case .failure(let rejection) where rejection.errorType == "TooManyRequestsException": "throttled"
        case .failure(let rejection) where rejection.errorType == "LimitExceededException": "limit_exceeded"
        case .failure: "denied"
        }
        metrics?.recordRoute(route, mode: mode, result: result)
    }
}

import HTTPTypes
package import MultiAuthAPIDefinition
import MultiAuthCrypto
import MultiAuthInboundAuthorization
package import MultiAuthJSONWebTokens
package import MultiAuthSigV4
package import MultiAuthCore
package import MultiAuthHTTP
import Synchronization

/// How the gateway serves an API definition: each route's authorization built from the
/// gateway's keys (SigV4 key pairs, API keys) and the definition's JWT issuers, and each
/// route's upstream from its `http_proxy` integration. Built once per definition (at start
/// and on each reload), so a request costs a route lookup and the checks its route names.
/// A class, so that each request takes the current policy with one reference.
package final class APIGatewayPolicy: Sendable {
    /// What a JWT scheme of the definition checks tokens with.
    package struct TokenCheck: Sendable {
        let validator: IDTokenValidator
        let keySet: JSONWebKeySetCache?

        /// Tokens that `validator` accepts, with keys from `keySet` when given.
        package init(validator: IDTokenValidator, keySet: JSONWebKeySetCache?) {
            self.validator = validator
            self.keySet = keySet
        }
    }

    /// One route as served. A class: each request's plan captures it, and a struct of this
    /// many references would be retained field by field each time.
    final class RouteAccess: Sendable {
        let route: APIRoute
        /// Nil for a route open to anyone (`security: []`) or decided by a request authorizer.
        let authorizer: InboundAuthorizer?
        /// The route's request authorizer, if that is its scheme.
        let requestAuthorizer: RequestAuthorizerCall?
        /// A key in `x-api-key` is required besides the other scheme (`{sigv4: [], api_key: []}`).
        let requiresKey: Bool
        /// Scopes a token must carry (every one).
        let scopes: [String]
        let integration: IntegrationTarget
        /// `x-api-key` is taken by the gateway and never forwarded.
        let consumesKey: Bool
        /// The route's name, made once.
        let name: String

        init(
            route: APIRoute, authorizer: InboundAuthorizer?, requestAuthorizer: RequestAuthorizerCall?, requiresKey: Bool, scopes: [String],
            integration: IntegrationTarget, consumesKey: Bool, name: String
        ) {
            self.route = route
            self.authorizer = authorizer
            self.requestAuthorizer = requestAuthorizer
            self.requiresKey = requiresKey
            self.scopes = scopes
            self.integration = integration
            self.consumesKey = consumesKey
            self.name = name
        }
    }

    let definition: APIDefinition
    /// Each route's access, in the definition's order.
    let access: [RouteAccess]
    let apiKeys: [String: String]
    let usage: UsageLimits?
    let metrics: ServerMetrics?
    /// Each route's key and usage check, made once: a request's plan takes its route's.
    let admits: [@Sendable (HTTPRequest, Principal?) -> UsageLimits.Admission]

    /// The policy for `definition`, with the gateway's `verifier` and `apiKeys` (key → name)
    /// and a token check for each JWT scheme (by the scheme's name).
    /// - Throws: ``APIDefinitionError`` when a route needs what the gateway lacks (a scheme it
    ///   was given no keys for, a request authorizer, a mapping source it cannot fill).
    /// Request authorizers are called through `http` as deployed at `deployment` (their
    /// method ARNs), their decisions kept by `clock`.
    package init(
        _ definition: APIDefinition, verifier: SigV4Verifier?, apiKeys: [String: String], tokenChecks: [String: TokenCheck], tls: UpstreamTLS,
        deployment: APIDeployment, http: any HTTPSender, usage: UsageLimits? = nil, metrics: ServerMetrics? = nil, clock: TimeSource = .system
    ) throws(APIDefinitionError) {
        let keys = apiKeys.filter { !$0.key.isEmpty }
        self.definition = definition
        self.apiKeys = keys
        self.usage = usage
        self.metrics = metrics
        var callers: [String: RequestAuthorizerCall] = [:]
        for (name, scheme) in definition.schemes {
            guard case .requestAuthorizer(let settings) = scheme else { continue }
            callers[name] = RequestAuthorizerCall(settings: settings, deployment: deployment, http: http, metrics: metrics, clock: clock)
        }
        var access: [RouteAccess] = []
        for route in definition.routes {
            access.append(try Self.access(
                route, schemes: definition.schemes, verifier: verifier, apiKeys: keys, tokenChecks: tokenChecks, callers: callers, tls: tls))
        }
        self.access = access
        let keysFromAuthorizer = definition.apiKeySource == .authorizer
        admits = access.map { access in
            { head, principal in Self.admit(head, principal, access: access, apiKeys: keys, keysFromAuthorizer: keysFromAuthorizer, usage: usage) }
        }
    }

    private static func access(
        _ route: APIRoute, schemes: [String: APISecurityScheme], verifier: SigV4Verifier?, apiKeys: [String: String],
        tokenChecks: [String: TokenCheck], callers: [String: RequestAuthorizerCall], tls: UpstreamTLS
    ) throws(APIDefinitionError) -> RouteAccess {
        let place = route.name
        var usesSigV4 = false, usesKey = false, requiresKey = false
        var token: TokenCheck?, scopes: [String] = []
        var caller: RequestAuthorizerCall?
        for requirement in route.security {
            let others = requirement.filter { if case .apiKey = schemes[$0.scheme] { false } else { true } }
            if others.count < requirement.count { if others.isEmpty { usesKey = true } else { requiresKey = true } }
            guard others.count <= 1 else { throw APIDefinitionError(.refused(place: place, problem: "one scheme besides an API key per security requirement is served")) }
            for needed in others {
                switch schemes[needed.scheme] {
                case .sigv4: usesSigV4 = true
                case .jwt:
                    guard token == nil || tokenChecks[needed.scheme]?.validator.issuer == token?.validator.issuer else {
                        throw APIDefinitionError(.refused(place: place, problem: "one JWT issuer per route is served"))
                    }
                    token = tokenChecks[needed.scheme]
                    scopes = needed.scopes
                case .requestAuthorizer:
                    guard route.security.count == 1 else {
                        throw APIDefinitionError(.refused(place: place, problem: "a request authorizer (\(needed.scheme)) is served as a route's only alternative"))
                    }
                    caller = callers[needed.scheme]
                case .apiKey, .none: break
                }
            }
        }
        if usesSigV4, verifier == nil { throw APIDefinitionError(.refused(place: place, problem: "it needs awsSigv4, and the gateway was given no key pairs")) }
        if usesKey || requiresKey, apiKeys.isEmpty { throw APIDefinitionError(.refused(place: place, problem: "it needs an API key, and the gateway was given none")) }
        let authorizer = route.security.isEmpty || caller != nil ? nil : InboundAuthorizer(
            verifier: usesSigV4 ? verifier : nil, apiKeys: usesKey ? apiKeys : [:], tokenValidator: token?.validator, keySet: token?.keySet)
        return RouteAccess(
            route: route, authorizer: authorizer, requestAuthorizer: caller, requiresKey: requiresKey, scopes: scopes,
            integration: try IntegrationTarget(route.integration, routeTemplate: route.template, place: place, tls: tls), consumesKey: usesKey || requiresKey,
            name: route.name)
    }

    /// The plan for `head` from `client`: its route's checks and upstream, or the answer without one.
    func plan(_ head: HTTPRequest, from client: ClientConnection, forwarder: UpstreamForwarder) -> Result<VerifyingGateway.Plan, VerifyingGateway.AnswerNow> {
        if head.method == .options, let cors = definition.cors, let preflight = CORSAnswers.preflight(head, cors) {
            return .failure(.init(decision: preflight))
        }
        guard let (index, parameters) = definition.routeIndex(head.method, (head.path ?? "/")[...]) else {
            metrics?.recordRoute("NONE", mode: "NONE", result: "denied")
            let answer = UpstreamForwarder.errorResponse(.forbidden, "MissingAuthenticationTokenException", "Missing Authentication Token")
            return .failure(.init(decision: .answer(answer.head, body: answer.body)))
        }
        let access = access[index]
        // A path made with values known now is checked before any authorizer is asked; one
        // made with the authorizer's context, once it has answered.
        guard let earlyPath = access.integration.path(for: head, from: client, parameters: parameters, principal: nil) else {
            return .failure(.init(decision: .answer(UpstreamForwarder.dotSegmentRefusal.head, body: UpstreamForwarder.dotSegmentRefusal.body)))
        }
        let responseFields = definition.cors.map { CORSAnswers.responseFields(head, $0) } ?? HTTPFields()
        let external = access.requestAuthorizer.map { caller in
            let route = access.route
            return VerifyingGateway.Plan.External(
                cached: { head in caller.cachedDecision(head, route: route, parameters: parameters) },
                decide: { head in await caller.decide(head, from: client, route: route, parameters: parameters) })
        }
        return .success(VerifyingGateway.Plan(authorizer: access.authorizer, external: external, routeName: access.name, admit: admits[index]) { head, principal, body in
            guard let request = access.integration.request(
                for: head, from: client, through: forwarder, parameters: parameters, principal: principal, dropKey: access.consumesKey,
                filled: access.integration.pathReadsPrincipal ? nil : earlyPath)
            else { return .answer(UpstreamForwarder.dotSegmentRefusal.head, body: UpstreamForwarder.dotSegmentRefusal.body) }
            return .forward(request, body: body, upstream: access.integration.upstream, responseFields: responseFields)
        })
    }

    /// How many routes the definition has (for the log).
    package var routeCount: Int { definition.routes.count }

    /// The first route's upstream origin, for a gateway given no `--upstream`.
    package var firstUpstream: String? {
        definition.routes.first.map { route in
            let uri = route.integration.uri
            guard let end = uri.firstRange(of: "://") else { return uri }
            return String(uri[..<end.upperBound]) + uri[end.upperBound...].prefix { $0 != "/" && $0 != "?" } + "/"
        }
    }

    /// What an authorized request must also satisfy: the route's scopes, its API key (from
    /// `x-api-key`, or from the authorizer's answer), and the key's usage plan.
    private static func admit(
        _ head: HTTPRequest, _ principal: Principal?, access: RouteAccess, apiKeys: [String: String], keysFromAuthorizer: Bool, usage: UsageLimits?
    ) -> UsageLimits.Admission {
        if !access.scopes.isEmpty, let principal {
            let granted = Set((principal.claims["scope"] ?? principal.claims["scp"] ?? "").split(separator: " ").map(String.init))
            guard access.scopes.allSatisfy(granted.contains) else {
                return .refuse(InboundRejection(status: .forbidden, errorType: "AccessDeniedException", message: "Forbidden", reason: "scopes missing on \(access.name)"))
            }
        }
        var keyName = principal?.mode == .apiKey ? principal?.name : nil
        if access.requiresKey {
            let key = (keysFromAuthorizer ? principal?.usageIdentifierKey : head.headerFields.onlyValue(InboundAuthorizer.apiKeyField)) ?? ""
            guard !key.isEmpty, let name = apiKeys.first(where: { ConstantTime.equals($0.key, key) })?.value else { return .refuse(.forbiddenKey) }
            keyName = name
        }
        guard let usage, let keyName else { return .pass }
        return usage.admit(key: keyName, route: access.name)
    }
}

/// The definition the gateway serves now; a reload swaps in a new one.
package final class CurrentAPIPolicy: Sendable {
    private let value: Mutex<APIGatewayPolicy>

    /// Starts with `policy`.
    package init(_ policy: APIGatewayPolicy) { value = Mutex(policy) }

    /// The policy now.
    package var current: APIGatewayPolicy { value.withLock { $0 } }

    /// Replaces it; requests under way keep the one they took.
    package func replace(with policy: APIGatewayPolicy) { value.withLock { $0 = policy } }
}

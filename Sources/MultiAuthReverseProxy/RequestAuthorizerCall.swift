import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthInboundAuthorization
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a definition is deployed, for method ARNs
/// (`arn:aws:execute-api:REGION:ACCOUNT:API_ID/STAGE/METHOD/PATH`).
package struct APIDeployment: Sendable {
    let region: String
    let account: String
    let apiId: String
    let stage: String

    /// A deployment.
    package init(region: String, account: String, apiId: String, stage: String) {
        self.region = region
        self.account = account
        self.apiId = apiId
        self.stage = stage
    }

    /// The method ARN of `method` on `path` (without its query), read as routes are matched
    /// (``RequestPath/normalized(_:)``: decoded, `%2F` a separator), so a policy is applied to
    /// the path the upstream serves.
    func methodARN(_ method: String, _ path: Substring) -> String {
        "arn:aws:execute-api:\(region):\(account):\(apiId)/\(stage)/\(method)\(RequestPath.normalized(path))"
    }
}

/// A Lambda-style request or token authorizer reached over HTTP, as API Gateway calls one: the
/// event it sends (payload 1.0, or 2.0), the policy or simple answer it reads, and a cache of
/// decisions by the identity sources' values for the authorizer's TTL. A cached policy is
/// evaluated again for each route's method ARN, so a policy that allows one route never opens
/// another. An authorizer that fails, hangs past 10 s or answers garbage denies (500), as API
/// Gateway fails closed.
package final class RequestAuthorizerCall: Sendable {
    /// What an authorizer said, as kept.
    struct Answer: Sendable {
        let principalId: String
        let context: [String: String]
        /// 1.0's (or 2.0's non-simple) policy; nil for a simple response.
        let policy: AuthorizerPolicy?
        /// 2.0 simple: `isAuthorized`.
        let authorized: Bool
        let usageIdentifierKey: String?
    }

    let settings: RequestAuthorizerSettings
    let deployment: APIDeployment
    let http: any HTTPSender
    let metrics: ServerMetrics?
    let clock: TimeSource
    private let cache = Mutex<[String: (expires: Double, answer: Answer)]>([:])
    /// The most decisions kept; past it, expired ones go, then the cache starts again.
    static let cacheLimit = 10_000
    static let answerLimit = 64 << 10

    init(settings: RequestAuthorizerSettings, deployment: APIDeployment, http: any HTTPSender, metrics: ServerMetrics?, clock: TimeSource) {
        self.metrics = metrics
        self.settings = settings
        self.deployment = deployment
        self.http = http
        self.clock = clock
    }

    /// The identity sources' values, or nil when one is missing (401 without a call).
    func identity(_ head: HTTPRequest, parameters: [String: String]) -> [String]? {
        var values: [String] = []
        for source in settings.identitySources {
            let name = source.split(separator: ".").last.map(String.init) ?? ""
            let value: String?
            if source.contains(".header.") {
                value = HTTPField.Name(name).flatMap { head.headerFields[$0] }
            } else if source.contains(".querystring.") {
                value = IntegrationTarget.query(of: head)[name]
            } else if source.contains(".path.") {
                value = parameters[name]
            } else {
                value = nil
            }
            guard let value, !value.isEmpty else { return nil }
            values.append(value)
        }
        return values
    }

    /// The decision when the cache holds one for these values.
    func cachedDecision(_ head: HTTPRequest, route: APIRoute, parameters: [String: String]) -> Result<Principal?, InboundRejection>? {
        guard settings.ttlSeconds > 0, let identity = identity(head, parameters: parameters) else { return nil }
        let now = clock.now()
        guard let kept = cache.withLock({ $0[identity.joined(separator: "\u{0}")] }), kept.expires > now else { return nil }
        metrics?.recordAuthorizerCache(hit: true)
        return decision(kept.answer, head: head)
    }

    /// The decision for `head` on `route`: from the cache, else from the authorizer.
    func decide(_ head: HTTPRequest, from client: ClientConnection, route: APIRoute, parameters: [String: String]) async -> Result<Principal?, InboundRejection> {
        guard let identity = identity(head, parameters: parameters) else { return .failure(Self.unauthorized) }
        if let cached = cachedDecision(head, route: route, parameters: parameters) { return cached }
        metrics?.recordAuthorizerCache(hit: false)
        let answer: Answer
        switch await call(head, from: client, route: route, parameters: parameters, identity: identity) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let read): answer = read
        }
        if settings.ttlSeconds > 0 {
            let expires = clock.now() + Double(settings.ttlSeconds)
            cache.withLock { kept in
                if kept.count >= Self.cacheLimit {
                    let now = clock.now()
                    kept = kept.filter { $0.value.expires > now }
                    if kept.count >= Self.cacheLimit { kept.removeAll() }
                }
                kept[identity.joined(separator: "\u{0}")] = (expires, answer)
            }
        }
        return decision(answer, head: head)
    }

    /// An answer applied to this request's method ARN.
    private func decision(_ answer: Answer, head: HTTPRequest) -> Result<Principal?, InboundRejection> {
        var principal = Principal(mode: .awsLambda, name: answer.principalId, claims: answer.context)
        principal.usageIdentifierKey = answer.usageIdentifierKey
        guard let policy = answer.policy else { return answer.authorized ? .success(principal) : .failure(Self.forbidden) }
        let arn = deployment.methodARN(head.method.rawValue, (head.path ?? "/").prefix { $0 != "?" })
        switch policy.evaluate(arn) {
        case .allow: return .success(principal)
        case .deny: return .failure(Self.explicitDeny)
        case .noMatch: return .failure(Self.forbidden)
        }
    }

    private func call(
        _ head: HTTPRequest, from client: ClientConnection, route: APIRoute, parameters: [String: String], identity: [String]
    ) async -> Result<Answer, InboundRejection> {
        let event = AuthorizerEvent.make(
            head, from: client, route: route, parameters: parameters, identity: identity, settings: settings, deployment: deployment)
        let request: HTTPRequest
        do { request = try HTTPRequest(method: .post, wireURL: settings.uri, headerFields: HTTPFields([HTTPField(name: .contentType, value: "application/json")])) } catch {
            return .failure(Self.failed("its URL cannot be used"))
        }
        let response: ReceivedResponse
        do { response = try await http.send(request, body: .bytes(event), responseBody: .memory(limit: Self.answerLimit)) } catch {
            if case .responseTooLarge = error.kind { return .failure(Self.failed("answered more than \(Self.answerLimit >> 10) KiB")) }
            return .failure(Self.failed("unreachable: \(error.code)"))
        }
        if response.status == 401 { return .failure(Self.unauthorized) }
        guard response.status == 200 else { return .failure(Self.failed("answered HTTP \(response.status)")) }
        guard let answer = AuthorizerEvent.answer(response.body, simple: settings.payloadFormat == "2.0" && settings.simpleResponses) else {
            return .failure(Self.failed("answered something that is not an authorizer response"))
        }
        return .success(answer)
    }

    static let unauthorized = InboundRejection(status: .unauthorized, errorType: "UnauthorizedException", message: "Unauthorized", reason: "no identity for the authorizer")
    static let forbidden = InboundRejection(
        status: .forbidden, errorType: "AccessDeniedException", message: "User is not authorized to access this resource", reason: "the authorizer's policy does not allow this route")
    static let explicitDeny = InboundRejection(
        status: .forbidden, errorType: "AccessDeniedException", message: "User is not authorized to access this resource with an explicit deny",
        reason: "the authorizer's policy denies this route")

    static func failed(_ why: String) -> InboundRejection {
        InboundRejection(status: .internalServerError, errorType: "AuthorizerConfigurationException", message: "Internal server error", reason: "authorizer \(why)")
    }
}

import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import MultiAuthTesting
import NIOEmbedded
import Testing

/// An API definition's paths as the gateway serves them, in process: a route is matched, a
/// method ARN built and an upstream path filled from one reading of the path, and no value
/// (a greedy or single parameter, a mapped header, an authorizer's context) puts a `.` or `..`
/// segment into an upstream path. The hostile paths are the hardening issue's; the expected
/// answers are API Gateway's documented ones (400 for a dot segment, 403 without a key).
struct GatewayPathTests {
    static let yaml = """
        openapi: 3.0.1
        info: {title: paths, version: "1"}
        paths:
          /open/{proxy+}:
            get: {security: [], \(proxy("/base/open/{proxy}"))}
          /admin:
            get: {security: [{api_key: []}], \(proxy("/base/admin"))}
          /items/{id}:
            get: {security: [], \(proxy("/base/items/{id}"))}
          /items/{id}/secret:
            get: {security: [{api_key: []}], \(proxy("/base/items/{id}/secret"))}
          /mapped:
            get: {security: [], \(proxy("/base/files/{p}", mapping: "integration.request.path.p: method.request.header.x-p"))}
          /context:
            get: {security: [{lambda: []}], \(proxy("/base/by/{who}", mapping: "integration.request.path.who: context.authorizer.folder"))}
          /users/{proxy+}:
            get: {security: [{lambda: []}], \(proxy("/base/users/{proxy}"))}
        components:
          securitySchemes:
            api_key: {type: apiKey, name: x-api-key, in: header}
            lambda:
              type: apiKey
              name: x-token
              in: header
              x-amazon-apigateway-authorizer: {type: request, identitySource: method.request.header.x-token, authorizerUri: "http://127.0.0.1:9/authorize", authorizerResultTtlInSeconds: 0}
        """

    static func proxy(_ path: String, mapping: String? = nil) -> String {
        let parameters = mapping.map { ", requestParameters: {\($0)}" } ?? ""
        return "responses: {\"200\": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: \"http://127.0.0.1:9\(path)\"\(parameters)}"
    }

    /// An authorizer allowing user 1's paths and the `/context` route, and denying user 2's
    /// profile outright, its context naming `folder`.
    static func authorizer(folder: String = "mine") -> ScriptedSender {
        let policy = """
            {"principalId": "user-1", "context": {"folder": "\(folder)"}, "policyDocument": {"Version": "2012-10-17", "Statement": [
              {"Effect": "Allow", "Action": "execute-api:Invoke", "Resource": ["arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-1/*", "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/context", "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/*"]},
              {"Effect": "Deny", "Action": "execute-api:Invoke", "Resource": "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-2/profile"}]}}
            """
        return ScriptedSender([.answer(200, policy)])
    }

    static func policy(_ sender: ScriptedSender = authorizer()) throws -> APIGatewayPolicy {
        let definition = try APIDefinition.load(Array(yaml.utf8), name: "paths.yaml")
        return try APIGatewayPolicy(
            definition, verifier: nil, apiKeys: ["gw-key": "gold"], tokenChecks: [:], tls: try UpstreamTLS(caBundle: nil, verifies: true),
            deployment: APIDeployment(region: "us-east-1", account: "123456789012", apiId: "api", stage: "prod"), http: sender)
    }

    enum Outcome: Equatable {
        case answered(Int)
        case forwarded(String)
    }

    /// What the gateway does with `GET target`: the answer it gives, or the path it sends.
    static func outcome(_ target: String, _ fields: [String: String] = [:], sender: ScriptedSender = authorizer()) async throws -> Outcome {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: target)
        for (name, value) in fields { head.headerFields[HTTPField.Name(name)!] = value }
        if let refusal = UpstreamForwarder.refusal(of: head) { return .answered(refusal.head.status.code) }
        let forwarder = try UpstreamForwarder(upstream: "http://127.0.0.1:9/")
        let plan: VerifyingGateway.Plan
        switch try policy(sender).plan(head, from: ClientConnection(EmbeddedChannel()), forwarder: forwarder) {
        case .failure(let now): return try outcome(of: now.decision)
        case .success(let found): plan = found
        }
        let principal: Principal?
        switch await VerifyingGateway.decide(head, plan: plan, bodySHA256: nil) {
        case .failure(let rejection): return .answered(rejection.status.code)
        case .success(let found): principal = found
        }
        if case .refuse(let rejection) = plan.admit(head, principal) { return .answered(rejection.status.code) }
        return try outcome(of: plan.forward(head, principal, UpstreamBody(.empty)))
    }

    static func outcome(of decision: Forwarding.Decision) throws -> Outcome {
        switch decision {
        case .answer(let head, _): return .answered(head.status.code)
        case .forward(let request, _, _, _, _): return .forwarded(request.path ?? "")
        case .later: throw CancellationError()
        }
    }

    @Test(arguments: [
        "/open/x%2F..%2F..%2Fadmin", "/open/x%2f..%2f..%2fadmin", "/open/x%252F..%252F..%252Fadmin", "/open/%252e%252e/%252e%252e/admin",
        "/open/x%5C..%5C..%5Cadmin", "/open/x/..%5c..%5cadmin", "/open/..;/..;/admin", "/open/%2E%2E/%2e%2E/admin",
    ])
    func anEncodedWalkOutOfAnOpenRouteIs400(target: String) async throws {
        #expect(try await Self.outcome(target) == .answered(400))
    }

    @Test func aPathNoRouteTakesIsMissingAuthenticationToken() async throws {
        #expect(try await Self.outcome("/nowhere") == .answered(403))
        #expect(try await Self.outcome("/admin/more") == .answered(403))
        #expect(try await Self.outcome("/open") == .answered(403), "a greedy parameter needs a segment")
    }

    @Test func theProtectedRouteStillNeedsItsKey() async throws {
        #expect(try await Self.outcome("/admin") == .answered(403))
        #expect(try await Self.outcome("/admin", ["x-api-key": "gw-key"]) == .forwarded("/base/admin"))
        #expect(try await Self.outcome("/open/a/b") == .forwarded("/base/open/a/b"))
    }

    /// `%2F` separates as the upstream reads it: a single parameter never carries a slash, and
    /// `/items/7%2Fsecret` is the protected route, not `/items/{id}` with `7/secret`.
    @Test func anEncodedSlashReachesTheRouteOfThePathTheUpstreamServes() async throws {
        #expect(try await Self.outcome("/items/7%2Fsecret") == .answered(403))
        #expect(try await Self.outcome("/items/7%2Fsecret", ["x-api-key": "gw-key"]) == .forwarded("/base/items/7/secret"))
        #expect(try await Self.outcome("/%61dmin") == .answered(403), "an encoded literal is the literal")
        #expect(try await Self.outcome("/open/a%2Fb") == .forwarded("/base/open/a/b"))
    }

    @Test(arguments: ["..", ".", "a/../../admin", "a%2F..%2F..%2Fadmin", "%2e%2e", "..\\admin", "%252e%252e", "..;x"])
    func aMappedHeaderCannotMakeADotSegment(value: String) async throws {
        #expect(try await Self.outcome("/mapped", ["x-p": value]) == .answered(400))
    }

    @Test func aMappedHeaderIsOneSegment() async throws {
        #expect(try await Self.outcome("/mapped", ["x-p": "a/b"]) == .forwarded("/base/files/a%2Fb"))
        #expect(try await Self.outcome("/mapped", ["x-p": "..."]) == .forwarded("/base/files/..."))
    }

    @Test func theAuthorizersContextCannotMakeADotSegment() async throws {
        #expect(try await Self.outcome("/context", ["x-token": "t"], sender: Self.authorizer(folder: "..")) == .answered(400))
        #expect(try await Self.outcome("/context", ["x-token": "t"], sender: Self.authorizer(folder: "a/../..")) == .answered(400))
        #expect(try await Self.outcome("/context", ["x-token": "t"]) == .forwarded("/base/by/mine"))
    }

    /// The request authorizer's policy is applied to the path the upstream serves: user 1's
    /// wildcard does not reach user 2's profile through encoded slashes, and user 2's explicit
    /// deny holds whatever the spelling. A dot segment never reaches the authorizer at all.
    @Test func anAuthorizersPolicyIsAppliedToTheNormalizedPath() async throws {
        let sender = Self.authorizer()
        #expect(try await Self.outcome("/users/user-1/..%2F..%2Fusers%2Fuser-2%2Fprofile", ["x-token": "t"], sender: sender) == .answered(400))
        #expect(sender.sent.isEmpty, "the authorizer is not asked about a dot segment")
        #expect(try await Self.outcome("/users/user-2%2Fprofile", ["x-token": "t"]) == .answered(403))
        #expect(try await Self.outcome("/users/user-2/pro%66ile", ["x-token": "t"]) == .answered(403))
        #expect(try await Self.outcome("/users/user-1/profile", ["x-token": "t"]) == .forwarded("/base/users/user-1/profile"))
        let asked = Self.authorizer()
        _ = try await Self.outcome("/users/user-2%2Fprofile", ["x-token": "t"], sender: asked)
        let event = String(decoding: try #require(asked.sent.first).body, as: UTF8.self)
        #expect(event.contains("\"arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-2/profile\""), "\(event)")
    }
}

import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import MultiAuthTesting
import NIOEmbedded
import Synchronization
import Testing

/// Request authorizers as API Gateway calls them, in process with a scripted authorizer and a
/// clock the test moves: the events sent (payload 1.0 REQUEST and TOKEN, 2.0), the answers
/// read, IAM's wildcard matching, the decision cache and the failures that fail closed.
/// Expected values are from API Gateway's documentation of Lambda authorizers.
struct RequestAuthorizerTests {
    static func settings(_ authorizer: String) throws -> RequestAuthorizerSettings {
        let yaml = """
            openapi: 3.0.1
            info: {title: a, version: "1"}
            paths:
              /users/{id}:
                get:
                  security: [{lambda: []}]
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "http://127.0.0.1:9/users/{id}"}
            components:
              securitySchemes:
                lambda:
                  type: apiKey
                  name: x-token
                  in: header
                  x-amazon-apigateway-authorizer: {\(authorizer)}
            """
        let definition = try APIDefinition.load(Array(yaml.utf8), name: "a.yaml")
        guard case .requestAuthorizer(let settings)? = definition.schemes["lambda"] else { throw CancellationError() }
        return settings
    }

    static let route = try! APIDefinition.load(Array("""
        openapi: 3.0.1
        info: {title: r, version: "1"}
        paths:
          /users/{id}:
            get: {security: [], responses: {"200": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "http://127.0.0.1:9/u"}}
        """.utf8), name: "r.yaml").routes[0]

    static let deployment = APIDeployment(region: "us-east-1", account: "123456789012", apiId: "api", stage: "prod")
    static let allowUser1 = #"""
        {"principalId": "user-1", "context": {"tier": "gold", "n": 3, "ok": true, "nested": {"x": 1}},
         "policyDocument": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "execute-api:Invoke", "Resource": "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-1"}]}}
        """#

    static func head(_ path: String, token: String? = "t-1") -> HTTPRequest {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: path)
        if let token { head.headerFields[HTTPField.Name("x-token")!] = token }
        head.headerFields[.userAgent] = "test-agent"
        return head
    }

    /// A wall clock the test sets.
    final class Clock: Sendable {
        let seconds = Mutex(1_700_000_000.0)
        var source: TimeSource { TimeSource { [self] in seconds.withLock { $0 } } }
    }

    static func caller(_ authorizer: String, _ sender: ScriptedSender, clock: Clock = Clock()) throws -> RequestAuthorizerCall {
        RequestAuthorizerCall(settings: try settings(authorizer), deployment: deployment, http: sender, metrics: nil, clock: clock.source)
    }

    static let client = ClientConnection(EmbeddedChannel())

    // MARK: Wildcards and policies

    @Test(arguments: [
        ("*", "", true), ("*", "anything", true), ("a?c", "abc", true), ("a?c", "ac", false), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false),
        ("arn:aws:execute-api:*:*:api/prod/GET/users/*", "arn:aws:execute-api:us-east-1:1:api/prod/GET/users/user-2/profile", true),
        ("arn:aws:execute-api:*:*:api/prod/GET/users/user-1/*", "arn:aws:execute-api:us-east-1:1:api/prod/GET/users/user-2", false),
        ("GET/users/user-1", "GET/users/user-10", false), ("**", "x", true), ("?", "", false),
    ])
    func iamWildcardsMatchAsIAMDoes(pattern: String, text: String, matches: Bool) {
        #expect(AuthorizerPolicy.matches(pattern, text) == matches)
    }

    @Test func anExplicitDenyWinsAndOtherActionsAreIgnored() throws {
        let document = try JSONValue.decode(#"""
            {"Statement": [
              {"Effect": "Allow", "Action": "execute-api:Invoke", "Resource": "arn:*"},
              {"Effect": "Deny", "Action": ["execute-api:Invoke"], "Resource": ["arn:*/DELETE/*"]},
              {"Effect": "Deny", "Action": "s3:GetObject", "Resource": "*"}]}
            """#).objectValue!
        let policy = try #require(AuthorizerPolicy(document))
        #expect(policy.evaluate("arn:x/prod/GET/a") == .allow)
        #expect(policy.evaluate("arn:x/prod/DELETE/a") == .deny)
        #expect(policy.evaluate("other") == .noMatch)
        #expect(AuthorizerPolicy(try JSONValue.decode(#"{"Statement": [{"Effect": "Maybe", "Action": "*", "Resource": "*"}]}"#).objectValue!) == nil)
    }

    // MARK: Answers

    @Test func answersAreReadAsAPIGatewayReadsThem() throws {
        let policy = try #require(AuthorizerEvent.answer(Array(Self.allowUser1.utf8), simple: false))
        #expect(policy.principalId == "user-1" && policy.context == ["tier": "gold", "n": "3", "ok": "true"])
        #expect(AuthorizerEvent.answer(Array(#"{"isAuthorized": true, "context": {"a": "b"}}"#.utf8), simple: true)?.authorized == true)
        #expect(AuthorizerEvent.answer(Array(#"{"isAuthorized": "yes"}"#.utf8), simple: true) == nil)
        #expect(AuthorizerEvent.answer(Array(#"{"principalId": "p"}"#.utf8), simple: false) == nil, "a policy answer needs its document")
        #expect(AuthorizerEvent.answer(Array("not json".utf8), simple: false) == nil)
    }

    // MARK: Events

    @Test func aRequestEventCarriesTheNormalizedMethodARNAndTheRequest() async throws {
        let sender = ScriptedSender([.answer(200, Self.allowUser1)])
        let caller = try Self.caller("type: request, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:9/a'", sender)
        _ = await caller.decide(Self.head("/users/user-1%2Fx?b=2&a=1"), from: Self.client, route: Self.route, parameters: ["id": "user-1"])
        let event = try JSONValue.decode(String(decoding: try #require(sender.sent.first).body, as: UTF8.self)).objectValue ?? [:]
        #expect(event["type"] == .string("REQUEST"))
        #expect(event["methodArn"] == .string("arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-1/x"))
        #expect(event["resource"] == .string("/users/{id}") && event["httpMethod"] == .string("GET"))
        #expect(event["queryStringParameters"] == .object(["a": .string("1"), "b": .string("2")]))
        #expect(event["pathParameters"] == .object(["id": .string("user-1")]))
        #expect(event["headers"]?.objectValue?["x-token"] == .string("t-1"))
    }

    @Test func aTokenEventAndAVersion2Event() async throws {
        let token = ScriptedSender([.answer(200, Self.allowUser1)])
        let tokenCaller = try Self.caller("type: token, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:9/a'", token)
        _ = await tokenCaller.decide(Self.head("/users/user-1"), from: Self.client, route: Self.route, parameters: ["id": "user-1"])
        let tokenEvent = try JSONValue.decode(String(decoding: try #require(token.sent.first).body, as: UTF8.self))
        #expect(tokenEvent == .object([
            "type": .string("TOKEN"), "authorizationToken": .string("t-1"),
            "methodArn": .string("arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/users/user-1"),
        ]))
        let two = ScriptedSender([.answer(200, #"{"isAuthorized": true}"#)])
        let caller = try Self.caller(
            "type: request, identitySource: '$request.header.x-token', authorizerUri: 'http://127.0.0.1:9/a', authorizerPayloadFormatVersion: '2.0', enableSimpleResponses: true",
            two)
        let decision = await caller.decide(Self.head("/users/a%20b?x=1"), from: Self.client, route: Self.route, parameters: ["id": "a b"])
        #expect((try? decision.get()) != nil)
        let event = try JSONValue.decode(String(decoding: try #require(two.sent.first).body, as: UTF8.self)).objectValue ?? [:]
        #expect(event["version"] == .string("2.0") && event["rawPath"] == .string("/users/a%20b") && event["rawQueryString"] == .string("x=1"))
        #expect(event["routeKey"] == .string("GET /users/{id}") && event["identitySource"] == .array([.string("t-1")]))
    }

    // MARK: The cache and failures

    @Test func aDecisionIsKeptForItsTTLAndAppliedToEachRoute() async throws {
        let sender = ScriptedSender([.answer(200, Self.allowUser1)])
        let clock = Clock()
        let caller = try Self.caller("type: request, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:9/a', authorizerResultTtlInSeconds: 60", sender, clock: clock)
        #expect((try? await caller.decide(Self.head("/users/user-1"), from: Self.client, route: Self.route, parameters: [:]).get()) != nil)
        let other = await caller.decide(Self.head("/users/user-2"), from: Self.client, route: Self.route, parameters: [:])
        #expect(other.failureStatus == 403, "the kept policy is applied to the new method ARN")
        #expect(sender.sent.count == 1, "the second decision came from the cache")
        clock.seconds.withLock { $0 += 61 }
        _ = await caller.decide(Self.head("/users/user-1"), from: Self.client, route: Self.route, parameters: [:])
        #expect(sender.sent.count == 2, "an expired decision is asked again")
        _ = await caller.decide(Self.head("/users/user-1", token: "t-2"), from: Self.client, route: Self.route, parameters: [:])
        #expect(sender.sent.count == 3, "another identity is another decision")
    }

    @Test(arguments: [
        (ScriptedSender.Step.answer(500, "{}"), 500), (.answer(401, ""), 401), (.answer(200, "garbage"), 500),
        (.failure(.timedOut(host: "127.0.0.1")), 500), (.answer(200, #"{"principalId": "p", "policyDocument": {"Statement": []}}"#), 403),
    ])
    func failuresFailClosed(step: ScriptedSender.Step, status: Int) async throws {
        let caller = try Self.caller("type: request, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:9/a'", ScriptedSender([step]))
        #expect(await caller.decide(Self.head("/users/user-1"), from: Self.client, route: Self.route, parameters: [:]).failureStatus == status)
    }

    @Test func aSimpleAnswerThatSaysNoIs403() async throws {
        let caller = try Self.caller(
            "type: request, identitySource: '$request.header.x-token', authorizerUri: 'http://127.0.0.1:9/a', authorizerPayloadFormatVersion: '2.0', enableSimpleResponses: true",
            ScriptedSender([.answer(200, #"{"isAuthorized": false}"#)]))
        #expect(await caller.decide(Self.head("/users/user-1"), from: Self.client, route: Self.route, parameters: [:]).failureStatus == 403)
    }

    @Test func aMissingIdentityIs401WithoutACall() async throws {
        let sender = ScriptedSender([.answer(200, Self.allowUser1)])
        let caller = try Self.caller("type: request, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:9/a'", sender)
        #expect(await caller.decide(Self.head("/users/user-1", token: nil), from: Self.client, route: Self.route, parameters: [:]).failureStatus == 401)
        #expect(sender.sent.isEmpty)
    }
}

extension Result where Failure == InboundRejection {
    /// The rejection's status code, or 0 when it succeeded.
    var failureStatus: Int {
        if case .failure(let rejection) = self { return rejection.status.code }
        return 0
    }
}

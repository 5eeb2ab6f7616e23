import HTTPTypes
import MultiAuthAPIDefinition
import MultiAuthAPIDefinitionLoader
import MultiAuthCore
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import Synchronization
import Testing

/// The gateway's own answers, in process: CORS as HTTP APIs apply it, usage plans' buckets and
/// quota periods on a clock the test sets, and what the upstream is sent of a request.
/// Expected values are API Gateway's documented ones and dates worked out by hand (UTC).
struct GatewayAnswersTests {
    // MARK: CORS

    static let cors = try! APIDefinition.load(Array("""
        openapi: 3.0.1
        info: {title: c, version: "1"}
        x-amazon-apigateway-cors: {allowOrigins: ["https://app.example"], allowMethods: ["GET", "POST"], allowHeaders: ["content-type"], exposeHeaders: ["x-id"], maxAge: 600}
        paths:
          /a:
            get: {security: [], responses: {"200": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "http://127.0.0.1:9/a"}}
        """.utf8), name: "c.yaml").cors!

    static func preflight(origin: String, method: String, headers: String? = nil) -> HTTPResponse? {
        var head = HTTPRequest(method: .options, scheme: "http", authority: "gw", path: "/a")
        head.headerFields[.origin] = origin
        head.headerFields[.accessControlRequestMethod] = method
        if let headers { head.headerFields[.accessControlRequestHeaders] = headers }
        guard case .answer(let response, _)? = CORSAnswers.preflight(head, cors) else { return nil }
        return response
    }

    @Test func aPreflightIsAnsweredWithoutAuthorization() throws {
        let allowed = try #require(Self.preflight(origin: "https://app.example", method: "POST", headers: "Content-Type"))
        #expect(allowed.status == .noContent)
        #expect(allowed.headerFields[.accessControlAllowOrigin] == "https://app.example" && allowed.headerFields[.accessControlAllowMethods] == "GET,POST")
        #expect(allowed.headerFields[.accessControlAllowHeaders] == "content-type" && allowed.headerFields[.accessControlMaxAge] == "600")
        for refused in [Self.preflight(origin: "https://evil.example", method: "GET"), Self.preflight(origin: "https://app.example", method: "DELETE"),
            Self.preflight(origin: "https://app.example", method: "GET", headers: "x-secret")] {
            #expect(refused?.status == .noContent && refused?.headerFields[.accessControlAllowOrigin] == nil, "no CORS fields for what is not allowed")
        }
        var plain = HTTPRequest(method: .options, scheme: "http", authority: "gw", path: "/a")
        plain.headerFields[.origin] = "https://app.example"
        #expect(CORSAnswers.preflight(plain, Self.cors) == nil, "an OPTIONS without Access-Control-Request-Method is no preflight")
    }

    @Test func anAllowedOriginsResponseCarriesTheFields() {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: "/a")
        head.headerFields[.origin] = "https://app.example"
        let fields = CORSAnswers.responseFields(head, Self.cors)
        #expect(fields[.accessControlAllowOrigin] == "https://app.example" && fields[.accessControlExposeHeaders] == "x-id" && fields[.vary] == "Origin")
        head.headerFields[.origin] = "https://evil.example"
        #expect(CORSAnswers.responseFields(head, Self.cors).isEmpty)
    }

    // MARK: Usage plans

    final class Clock: Sendable {
        let seconds = Mutex(1_700_000_000.0)  // Tuesday 2023-11-14 22:13:20 UTC
        var source: TimeSource { TimeSource { [self] in seconds.withLock { $0 } } }
    }

    static func limits(_ plan: String, clock: Clock) throws -> UsageLimits {
        let plans = try UsagePlans.load(Array(#"{"usagePlans": [\#(plan)]}"#.utf8), name: "p.json", knownKeys: ["gold"])
        return try UsageLimits(plans, stateFile: nil, clock: clock.source)
    }

    static func status(_ admission: UsageLimits.Admission) -> Int {
        switch admission {
        case .pass: 200
        case .refuse(let rejection): rejection.status.code
        case .later: -1
        }
    }

    @Test func aBucketRefillsAtItsRate() throws {
        let clock = Clock()
        let limits = try Self.limits(#"{"name": "p", "throttle": {"rateLimit": 1, "burstLimit": 2}, "apiKeys": ["gold"]}"#, clock: clock)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 200)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 200)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 429, "the burst of 2 is spent")
        #expect(Self.status(limits.admit(key: "gold", route: "GET /b")) == 200, "each route has its bucket")
        clock.seconds.withLock { $0 += 1 }
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 200, "one token a second")
        #expect(Self.status(limits.admit(key: "silver", route: "GET /a")) == 403, "a key in no plan")
    }

    @Test func aQuotaStartsAgainWithItsPeriod() throws {
        let clock = Clock()
        let limits = try Self.limits(#"{"name": "p", "quota": {"limit": 1, "period": "DAY"}, "apiKeys": ["gold"]}"#, clock: clock)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 200)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /b")) == 429)
        clock.seconds.withLock { $0 = 1_699_920_000 + 86_400 }  // midnight UTC, the next day
        #expect(Self.status(limits.admit(key: "gold", route: "GET /a")) == 200)
    }

    @Test(arguments: [("DAY", 1_699_920_000.0, 1_700_006_400.0), ("WEEK", 1_699_833_600, 1_700_438_400), ("MONTH", 1_698_796_800, 1_701_388_800)])
    func periodsAreUTCDaysMondaysAndMonths(period: String, start: Double, end: Double) {
        #expect(UsageLimits.periodStart(period, now: 1_700_000_000) == start)
        #expect(UsageLimits.periodEnd(period, start: start) == end)
    }

    @Test func aQuotaStartsFromItsOffsetAndARouteMayHaveItsOwnThrottle() throws {
        let clock = Clock()
        let limits = try Self.limits(
            #"{"name": "p", "quota": {"limit": 3, "period": "MONTH", "offset": 2}, "methodThrottles": {"GET /slow": {"rateLimit": 1, "burstLimit": 1}}, "apiKeys": ["gold"]}"#,
            clock: clock)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /slow")) == 200)
        #expect(Self.status(limits.admit(key: "gold", route: "GET /slow")) == 429, "the route's own bucket of 1")
        #expect(Self.status(limits.admit(key: "gold", route: "GET /fast")) == 429, "2 already used of 3 this month, plus the one above")
    }

    @Test func anyOriginWithCredentialsEchoesTheOrigin() throws {
        let any = try APIDefinition.load(Array("""
            openapi: 3.0.1
            info: {title: c, version: "1"}
            x-amazon-apigateway-cors: {allowOrigins: ["*"], allowMethods: ["*"], allowCredentials: true}
            paths:
              /a:
                get: {security: [], responses: {"200": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: "http://127.0.0.1:9/a"}}
            """.utf8), name: "c.yaml").cors!
        var head = HTTPRequest(method: .options, scheme: "http", authority: "gw", path: "/a")
        head.headerFields[.origin] = "https://any.example"
        head.headerFields[.accessControlRequestMethod] = "patch"
        guard case .answer(let response, _)? = CORSAnswers.preflight(head, any) else {
            Issue.record("no preflight answer")
            return
        }
        #expect(response.headerFields[.accessControlAllowOrigin] == "https://any.example" && response.headerFields[.accessControlAllowMethods] == "PATCH")
        #expect(response.headerFields[.accessControlAllowCredentials] == "true")
    }

    // MARK: What goes upstream

    @Test func hopByHopAndSpoofedIdentityFieldsNeverGoUpstream() throws {
        let forwarder = try UpstreamForwarder(upstream: "http://127.0.0.1:9/base/")
        var head = HTTPRequest(method: .get, scheme: "http", authority: "gw", path: "/a?x=1")
        for (name, value) in [
            ("Connection", "keep-alive, X-Secret-Hop"), ("X-Secret-Hop", "1"), ("Keep-Alive", "5"), ("TE", "trailers"), ("Upgrade", "h2c"),
            ("X-MultiAuth-Principal", "admin"), ("X_MultiAuth_Principal", "admin"), ("x-multiauth-mode", "AWS_IAM"), ("X-Kept", "yes"),
        ] { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let sent = forwarder.upstreamRequest(for: head, principal: Principal(mode: .apiKey, name: "ci", claims: [:]))
        #expect(sent.path == "/base/a?x=1" && sent.authority == "127.0.0.1:9")
        let names = Set(sent.headerFields.map { $0.name.canonicalName })
        #expect(names == ["x-kept", "x-multiauth-principal", "x-multiauth-mode"], "\(names)")
        #expect(sent.headerFields[UpstreamForwarder.principalField] == "ci" && sent.headerFields[UpstreamForwarder.modeField] == "API_KEY")
    }

    /// RFC 9110 section 7.6.1's connection fields, `Proxy-Connection`, `TE`, `Trailer` and
    /// `Upgrade`, and the framing the transport writes; nothing that merely resembles one.
    @Test func theHopByHopNamesAreExactlyThese() {
        let hops = ["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                    "transfer-encoding", "upgrade", "host", "content-length", "expect"]
        #expect(hops.allSatisfy(UpstreamForwarder.isHopByHop))
        let others = ["tee", "t", "hosts", "x-host", "connections", "keep_alive", "trailers", "upgrade-insecure-requests", "expects",
                      "content-type", "proxy-authorisation", "authorization", "x-amz-date", ""]
        #expect(!others.contains(where: UpstreamForwarder.isHopByHop))
    }
}

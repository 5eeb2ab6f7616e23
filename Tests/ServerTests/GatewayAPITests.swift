import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import Testing

/// `multiauth gateway --api` serving scripts/peers/api-definition.yaml, driven by clients we
/// did not write: botocore-signed requests (signed_call.py), nanoidp's access tokens, and curl
/// for CORS preflights. The upstream stand-in echoes what reached it and counts arrivals under
/// the test's own prefix.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && Peers.oidcAvailable && !Peers.upstream.isEmpty && !Peers.authorizer.isEmpty, Peers.reason))
struct GatewayAPITests {
    struct Fixture {
        let gateway: GatewayProcess
        let prefix = "t/\(UUID().uuidString.lowercased())"
        let folder: ScratchFolder

        /// A gateway serving `definition` (else scripts/peers/api-definition.yaml) with the placeholders filled in.
        init(_ extra: [String] = [], folder existing: ScratchFolder? = nil, environment: [String: String] = [:], definition: String? = nil) throws {
            folder = try existing ?? ScratchFolder("multiauth-gateway-api")
            let template = try definition ?? String(contentsOf: Paths.repository.appendingPathComponent("scripts/peers/api-definition.yaml"), encoding: .utf8)
            let definition = template.replacingOccurrences(of: "@UPSTREAM@", with: Peers.upstream).replacingOccurrences(of: "@PREFIX@", with: prefix)
                .replacingOccurrences(of: "@ISSUER@", with: Peers.oidcIssuer).replacingOccurrences(of: "@AUTHORIZER@", with: Peers.authorizer)
            try Data(definition.utf8).write(to: folder.url.appendingPathComponent("api.yaml"))
            try Data(#"{"\#(GatewayTests.keyId)": "\#(GatewayTests.secret)"}"#.utf8).write(to: folder.url.appendingPathComponent("keys.json"))
            chmod(folder.path + "/keys.json", 0o600)
            gateway = try GatewayProcess([
                "gateway", "--listen", "127.0.0.1:0", "--api", folder.path + "/api.yaml", "--iam-credentials", folder.path + "/keys.json",
                "--api-key", "ci=gw-key-123", "-v",
            ] + extra, environment: environment)
        }

        func send(_ method: HTTPRequest.Method, _ path: String, _ named: [String: String] = [:]) async throws -> (status: Int, body: [String: Any], fields: HTTPFields) {
            var fields = HTTPFields()
            for (name, value) in named { fields[HTTPField.Name(name)!] = value }
            let response = try await GatewayTests.send(method, gateway.url + path, fields: fields)
            let body = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            return (response.status, body, response.head.headerFields)
        }

        /// How many requests under this test's prefix reached the upstream.
        func arrivals() async throws -> Int {
            let response = try await GatewayTests.send(.get, Peers.upstream + "/_peer/count?prefix=/" + prefix)
            return try #require((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["count"] as? Int)
        }
    }

    /// A client-credentials access token from nanoidp for `scope`.
    static func token(scope: String) async throws -> String {
        let basic = Data("\(Peers.oidcConfidentialClient):\(Peers.oidcClientSecret)".utf8).base64EncodedString()
        var fields = HTTPFields()
        fields[.authorization] = "Basic \(basic)"
        fields[.contentType] = "application/x-www-form-urlencoded"
        let response = try await CurlHTTPClient().send(
            try HTTPRequest(method: .post, wireURL: Peers.oidcIssuer + "/token", headerFields: fields),
            body: .bytes(Array("grant_type=client_credentials&scope=\(scope.replacingOccurrences(of: " ", with: "+"))".utf8)))
        return try #require((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["access_token"] as? String)
    }

    static func headers(_ echo: [String: Any]) -> [String: String] {
        Dictionary((echo["headers"] as? [String: String] ?? [:]).map { ($0.key.lowercased(), $0.value) }) { $1 }
    }

    /// Unknown routes and methods get API Gateway's answer; a public route passes unsigned.
    @Test func routesAreTheDefinitionsAndOthersAreMissingAuthenticationToken() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        for (method, path) in [(HTTPRequest.Method.get, "/nowhere"), (.delete, "/public"), (.get, "/files/")] {
            let answer = try await fixture.send(method, path)
            #expect(answer.status == 403 && answer.body["message"] as? String == "Missing Authentication Token", "\(method) \(path)")
            #expect(answer.fields[HTTPField.Name("x-amzn-ErrorType")!] == "MissingAuthenticationTokenException")
        }
        let open = try await fixture.send(.get, "/public?x=1")
        #expect(open.status == 200 && open.body["target"] as? String == "/\(fixture.prefix)/public?x=1", "\(open.body)")
        #expect(try await fixture.arrivals() == 1)
    }

    /// SigV4 routes take botocore's signatures, fill path parameters, and refuse the unsigned;
    /// a greedy route takes any method and depth; a route needing both a signature and a key
    /// refuses either alone.
    @Test func signedRoutesAndGreedyPaths() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let signed = try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.gateway.url + "/iam/items/a%20b"])
        #expect(signed.status == 200 && signed.echo?["target"] as? String == "/\(fixture.prefix)/items/a%20b", "\(signed.echo ?? [:])")
        #expect(Self.headers(signed.echo ?? [:])["x-multiauth-principal"] == GatewayTests.keyId)
        #expect(try await fixture.send(.get, "/iam/items/a").status == 403)
        let deep = try await GatewayTests.signedCall(
            ["--signer", "botocore", "--method", "POST", "--body", "{}", "--url", fixture.gateway.url + "/files/a/b/c.txt"])
        #expect(deep.status == 200 && deep.echo?["target"] as? String == "/\(fixture.prefix)/files/a/b/c.txt", "\(deep.echo ?? [:])")
        let keyed = try await fixture.send(.delete, "/files/x", ["x-api-key": "gw-key-123"])
        #expect(keyed.status == 200 && Self.headers(keyed.body)["x-api-key"] == nil, "the key is never forwarded")
        let signedOnly = try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.gateway.url + "/both"])
        #expect(signedOnly.status == 403)
        let bothPresent = try await GatewayTests.signedCall(["--signer", "botocore", "--url", fixture.gateway.url + "/both", "--header", "x-api-key:gw-key-123"])
        #expect(bothPresent.status == 200, "\(bothPresent.errorType ?? "")")
        #expect(try await fixture.arrivals() == 4)
    }

    /// Mapped headers come from the definition and replace what the client sent; a JWT route
    /// needs its scopes; the query and mapped query parameters reach the upstream.
    @Test func mappingsReplaceSpoofedHeadersAndScopesAreChecked() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let keyed = try await fixture.send(.get, "/keyed?page=2", ["x-api-key": "gw-key-123", "x-plan": "platinum", "x-caller": "tests"])
        #expect(keyed.status == 200 && Self.headers(keyed.body)["x-plan"] == "gold", "\(keyed.body)")
        #expect(keyed.body["target"] as? String == "/\(fixture.prefix)/keyed?page=2&caller=tests")
        #expect(try await fixture.send(.get, "/keyed", ["x-api-key": "wrong"]).status == 403)
        let reader = try await Self.token(scope: "openid pets.read")
        let pets = try await fixture.send(.get, "/pets", ["Authorization": "Bearer \(reader)", "x-user": "admin"])
        #expect(pets.status == 200, "\(pets.body)")
        #expect(Self.headers(pets.body)["x-user"] == Peers.oidcConfidentialClient && Self.headers(pets.body)["x-client"] == Peers.oidcConfidentialClient)
        let write = try await fixture.send(.post, "/pets", ["Authorization": "Bearer \(reader)"])
        #expect(write.status == 403 && write.body["message"] as? String == "Forbidden", "pets.write is missing: \(write.body)")
        #expect(try await fixture.send(.get, "/pets").status == 401)
        let open = try await fixture.send(.get, "/public", ["x-source-ip": "203.0.113.9", "x-client-subject": "CN=admin"])
        let seen = Self.headers(open.body)
        #expect(open.status == 200 && seen["x-source-ip"] == "127.0.0.1" && seen["x-client-subject"] == nil, "\(seen)")
        #expect(try await fixture.arrivals() == 3)
    }

    /// curl's preflight is answered by the gateway without authorization; an allowed origin's
    /// response gets the CORS fields, another origin's does not.
    @Test func corsPreflightsAreAnsweredHere() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        func preflight(_ origin: String) throws -> String {
            let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), [
                "-s", "-i", "-X", "OPTIONS", fixture.gateway.url + "/pets", "-H", "Origin: \(origin)", "-H", "Access-Control-Request-Method: GET",
                "-H", "Access-Control-Request-Headers: authorization",
            ], limit: 30)
            return String(decoding: run.stdout, as: UTF8.self).lowercased()
        }
        let allowed = try preflight("https://app.example")
        #expect(allowed.hasPrefix("http/1.1 204") && allowed.contains("access-control-allow-origin: https://app.example"), "\(allowed)")
        #expect(allowed.contains("access-control-allow-methods: get,post") && allowed.contains("access-control-max-age: 300"))
        let other = try preflight("https://evil.example")
        #expect(other.hasPrefix("http/1.1 204") && !other.contains("access-control-allow-origin"), "\(other)")
        let open = try await fixture.send(.get, "/public", ["Origin": "https://app.example"])
        #expect(open.fields[.accessControlAllowOrigin] == "https://app.example" && open.fields[.accessControlExposeHeaders] == "x-request-id")
        #expect(try await fixture.arrivals() == 1, "preflights never reach the upstream")
    }

    /// How many times the authorizer was asked about `token`, and the events it got.
    static func authorizerCalls(_ token: String) async throws -> (count: Int, events: [[String: Any]]) {
        let response = try await GatewayTests.send(.get, Peers.authorizer + "/_peer/calls?token=" + token)
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (object["count"] as? Int ?? -1, object["events"] as? [[String: Any]] ?? [])
    }

    /// A 1.0 request authorizer's policy allows its route, is cached for the TTL (one call for
    /// two requests), and is evaluated again for another route, which it does not open; its
    /// principal and context are mapped upstream; the event is API Gateway's.
    @Test func aCachedPolicyIsEvaluatedAgainForEachRoute() async throws {
        let fixture = try Fixture(["--metrics-listen", "127.0.0.1:0"])
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let token = "allow-pets-\(UUID().uuidString.prefix(8))"
        let first = try await fixture.send(.get, "/authz/pets", ["x-token": token, "x-tier": "platinum"])
        #expect(first.status == 200 && Self.headers(first.body)["x-tier"] == "gold" && Self.headers(first.body)["x-principal"] == "user-1", "\(first.body)")
        #expect(try await fixture.send(.get, "/authz/pets", ["x-token": token]).status == 200)
        let admin = try await fixture.send(.get, "/authz/admin", ["x-token": token])
        #expect(admin.status == 403 && admin.body["message"] as? String == "User is not authorized to access this resource", "\(admin.body)")
        let calls = try await Self.authorizerCalls(token)
        #expect(calls.count == 1, "one call within the TTL, whatever the route")
        let event = try #require(calls.events.first)
        #expect(event["type"] as? String == "REQUEST" && event["methodArn"] as? String == "arn:aws:execute-api:us-east-1:123456789012:multiauth/local/GET/authz/pets")
        #expect(event["resource"] as? String == "/authz/pets" && (event["headers"] as? [String: String])?["x-token"] == token)
        #expect(try await fixture.arrivals() == 2)
        _ = try await fixture.send(.get, "/nowhere")
        let samples = try await ObservabilityTests.samples(try await fixture.gateway.metricsURL())
        let routes = samples.filter { $0.key.hasPrefix("multiauth_api_decisions_total{") || $0.key.hasPrefix("multiauth_authorizer_cache_total{") }
        #expect(routes == [
            "multiauth_api_decisions_total{mode=AWS_LAMBDA,result=allowed,route=GET /authz/pets}": 2,
            "multiauth_api_decisions_total{mode=AWS_LAMBDA,result=denied,route=GET /authz/admin}": 1,
            "multiauth_api_decisions_total{mode=NONE,result=denied,route=NONE}": 1,
            "multiauth_authorizer_cache_total{result=hit}": 2, "multiauth_authorizer_cache_total{result=miss}": 1,
        ], "\(routes)")
        #expect(samples.keys.allSatisfy { !$0.contains(token) && !$0.contains("/nowhere") })
    }

    /// Denials and failures: an explicit Deny, a policy for another account, no identity (no
    /// call), a 401, garbage, 10 MB and a hang each answer as API Gateway does, and nothing
    /// reaches the upstream.
    @Test func authorizerDenialsAndFailuresFailClosed() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let id = UUID().uuidString.prefix(8)
        let cases: [(String, Int, String)] = [
            ("deny-\(id)", 403, "User is not authorized to access this resource with an explicit deny"),
            ("elsewhere-\(id)", 403, "User is not authorized to access this resource"),
            ("unauthorized-\(id)", 401, "Unauthorized"),
            ("garbage-\(id)", 500, "Internal server error"),
            ("huge-\(id)", 500, "Internal server error"),
            ("slow-\(id)", 500, "Internal server error"),
        ]
        for (token, status, message) in cases {
            let answer = try await fixture.send(.get, "/authz/pets", ["x-token": token])
            #expect(answer.status == status && answer.body["message"] as? String == message, "\(token): \(answer.status) \(answer.body)")
        }
        let none = try await fixture.send(.get, "/authz/pets")
        #expect(none.status == 401 && none.body["message"] as? String == "Unauthorized")
        #expect(try await fixture.gateway.logShows("authorizer answered more than 64 KiB"), "the 10 MB answer is cut off at the limit")
        #expect(try await fixture.arrivals() == 0)
    }

    /// A 2.0 simple response allows or denies, with no cache at TTL 0 (a call per request).
    @Test func simpleResponsesAndNoCache() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let yes = "yes-\(UUID().uuidString.prefix(8))", no = "no-\(UUID().uuidString.prefix(8))"
        let allowed = try await fixture.send(.get, "/authz/simple", ["x-token": yes])
        #expect(allowed.status == 200 && Self.headers(allowed.body)["x-tier"] == "silver")
        #expect(try await fixture.send(.get, "/authz/simple", ["x-token": yes]).status == 200)
        #expect(try await fixture.send(.get, "/authz/simple", ["x-token": no]).status == 403)
        let calls = try await Self.authorizerCalls(yes)
        #expect(calls.count == 2 && calls.events.first?["version"] as? String == "2.0" && calls.events.first?["routeKey"] as? String == "GET /authz/simple")
    }

    static let plans = """
        usagePlans:
          - name: bronze
            throttle: {rateLimit: 0.001, burstLimit: 2}
            apiKeys: [ci]
          - name: gold
            quota: {limit: 3, period: MONTH}
            apiKeys: [gold]
        """

    /// Throttling per key and route (a burst of 2, then 429 Too Many Requests, while another
    /// route has its own bucket), a key in no plan refused, and a quota that holds across a
    /// restart (429 Limit Exceeded); a plan naming an unknown key stops the start.
    @Test func usagePlansThrottleAndCountAcrossARestart() async throws {
        let folder = try ScratchFolder("multiauth-gateway-usage")
        defer { folder.remove() }
        try Data(Self.plans.utf8).write(to: folder.url.appendingPathComponent("plans.yaml"))
        let extra = ["--usage-plans", folder.path + "/plans.yaml", "--usage-state", folder.path + "/counts.json",
                     "--api-key", "gold=gw-key-gold", "--api-key", "stray=gw-key-stray"]
        var fixture = try Fixture(extra, folder: folder)
        let ci = ["x-api-key": "gw-key-123"]
        #expect(try await fixture.send(.get, "/keyed", ci).status == 200)
        #expect(try await fixture.send(.get, "/keyed", ci).status == 200)
        let throttled = try await fixture.send(.get, "/keyed", ci)
        #expect(throttled.status == 429 && throttled.body["message"] as? String == "Too Many Requests", "\(throttled.body)")
        #expect(try await fixture.send(.get, "/files/x", ci).status == 200, "another route has its own bucket")
        #expect(try await fixture.send(.get, "/keyed", ["x-api-key": "gw-key-stray"]).status == 403, "a key in no plan")
        let gold = ["x-api-key": "gw-key-gold"]
        for _ in 0..<3 { #expect(try await fixture.send(.get, "/keyed", gold).status == 200) }
        let over = try await fixture.send(.get, "/keyed", gold)
        #expect(over.status == 429 && over.body["message"] as? String == "Limit Exceeded", "\(over.body)")
        #expect(fixture.gateway.stop() == 0)
        fixture = try Fixture(extra, folder: folder)
        defer { #expect(fixture.gateway.stop() == 0) }
        #expect(try await fixture.send(.get, "/keyed", gold).status == 429, "the count survived the restart")
        #expect(try await fixture.send(.get, "/keyed", ci).status == 200, "throttling starts full")

        try Data((Self.plans + "\n  - {name: odd, apiKeys: [nobody]}\n").utf8).write(to: folder.url.appendingPathComponent("plans.yaml"))
        let refused = try await CLI.run(["gateway", "--listen", "127.0.0.1:0", "--api", folder.path + "/api.yaml", "--api-key", "ci=k", "--api-key", "gold=g",
                                              "--iam-credentials", folder.path + "/keys.json", "--usage-plans", folder.path + "/plans.yaml"], limit: 30)
        #expect(refused.status != 0 && refused.stderr.contains("names API key nobody"), "\(refused.stderr.replacingOccurrences(of: "\n", with: " | "))")
    }

    /// A usage state file that holds no counts (a byte appended) stops the start, naming it and
    /// leaving it as it was; `--usage-state-reset` keeps it aside and starts from zero.
    @Test func anUnreadableUsageStateStopsTheStartUnlessReset() async throws {
        let folder = try ScratchFolder("multiauth-gateway-usage-state")
        defer { folder.remove() }
        try Data(Self.plans.utf8).write(to: folder.url.appendingPathComponent("plans.yaml"))
        let state = folder.path + "/counts.json"
        let broken = Data(#"{"gold": {"period": 1798761600, "used": 1}}!"#.utf8)
        try broken.write(to: URL(fileURLWithPath: state))
        #expect(try Fixture([], folder: folder).gateway.stop() == 0, "the fixture writes api.yaml and keys.json")
        let arguments = ["gateway", "--listen", "127.0.0.1:0", "--api", folder.path + "/api.yaml", "--api-key", "ci=gw-key-123", "--api-key", "gold=g",
                         "--iam-credentials", folder.path + "/keys.json", "--usage-plans", folder.path + "/plans.yaml", "--usage-state", state]
        let refused = try await CLI.run(arguments, limit: 30)
        #expect(refused.status == 1 && refused.stderr.contains("--usage-state") && refused.stderr.contains(state), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == broken, "the file is left as it was")
        let reset = try GatewayProcess(arguments + ["--usage-state-reset"])
        defer { #expect(reset.stop() == 0) }
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("counts.json.unreadable-") }
        #expect(kept.count == 1, "\(kept)")
        #expect(try Data(contentsOf: folder.url.appendingPathComponent(kept.first ?? "none")) == broken)
    }

    /// With `x-amazon-apigateway-api-key-source: AUTHORIZER`, the key is the authorizer's
    /// `usageIdentifierKey` (kept with its cached decision) and counts against its plan; a key
    /// the gateway lacks is refused, and a key in `x-api-key` counts for nothing.
    @Test func keysFromTheAuthorizerCountAgainstTheirPlan() async throws {
        let folder = try ScratchFolder("multiauth-gateway-authorizer-keys")
        defer { folder.remove() }
        try Data(Self.plans.utf8).write(to: folder.url.appendingPathComponent("plans.yaml"))
        let definition = """
            openapi: 3.0.1
            info: {title: metered, version: "1.0"}
            x-amazon-apigateway-api-key-source: AUTHORIZER
            paths:
              /metered:
                get:
                  security: [{lambda: [], api_key: []}]
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration: {type: http_proxy, httpMethod: GET, uri: "@UPSTREAM@/@PREFIX@/metered"}
            components:
              securitySchemes:
                api_key: {type: apiKey, name: x-api-key, in: header}
                lambda:
                  type: apiKey
                  name: x-token
                  in: header
                  x-amazon-apigateway-authorizer: {type: request, identitySource: method.request.header.x-token, authorizerUri: "@AUTHORIZER@", authorizerResultTtlInSeconds: 300}
            """
        let fixture = try Fixture(["--usage-plans", folder.path + "/plans.yaml", "--api-key", "gold=gw-key-gold"], folder: folder, definition: definition)
        defer { #expect(fixture.gateway.stop() == 0) }
        let metered = "metered-\(UUID().uuidString.prefix(8))"
        for _ in 0..<3 { #expect(try await fixture.send(.get, "/metered", ["x-token": metered]).status == 200) }
        let over = try await fixture.send(.get, "/metered", ["x-token": metered])
        #expect(over.status == 429 && over.body["message"] as? String == "Limit Exceeded", "\(over.status) \(over.body)")
        #expect(try await Self.authorizerCalls(metered).count == 1, "the key is kept with the cached decision")
        let unknown = try await fixture.send(.get, "/metered", ["x-token": "unmetered-\(UUID().uuidString.prefix(8))"])
        #expect(unknown.status == 403 && unknown.body["message"] as? String == "Forbidden", "\(unknown.body)")
        let header = try await fixture.send(.get, "/metered", ["x-token": "open-\(UUID().uuidString.prefix(8))", "x-api-key": "gw-key-gold"])
        #expect(header.status == 403, "x-api-key is not where keys come from: \(header.body)")
        #expect(try await fixture.arrivals() == 3)
    }

    /// Mutual TLS (`--tls-client-ca`): curl with a certificate the CA issued gets through, and
    /// the certificate is described to the integration (`context.identity.clientCert.*`) and to
    /// a request authorizer as openssl describes it; without one, or with a certificate of its
    /// own, the handshake fails and nothing reaches the upstream.
    @Test func mutualTLSNeedsACertificateFromTheCA() async throws {
        let folder = try ScratchFolder("multiauth-gateway-mtls")
        defer { folder.remove() }
        let ca = Peers.environment["MULTIAUTH_TEST_RA_CA_CERT"] ?? "", caKey = Peers.environment["MULTIAUTH_TEST_RA_CA_KEY"] ?? ""
        let issue = """
            cd '\(folder.path)' && openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=client -keyout client-key.pem -out client.csr 2>/dev/null \
            && openssl x509 -req -in client.csr -CA '\(ca)' -CAkey '\(caKey)' -CAcreateserial -days 1 -out client.pem 2>/dev/null \
            && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=stranger -days 1 -keyout stranger-key.pem -out stranger.pem 2>/dev/null
            """
        #expect(try await KeyringStoreKeyTests.shell(issue).status == 0)
        let fixture = try Fixture(["--tls-cert", Peers.tlsCA, "--tls-key", Peers.tlsKey, "--tls-client-ca", ca], folder: folder)
        defer { #expect(fixture.gateway.stop() == 0) }
        let base = fixture.gateway.url.replacingOccurrences(of: "http://", with: "https://")
        func curl(_ extra: [String], _ path: String = "/public") throws -> (status: Int32, output: String) {
            let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "--cacert", Peers.tlsCA] + extra + [base + path], limit: 30)
            return (run.status, String(decoding: run.stdout, as: UTF8.self))
        }
        let certificate = ["--cert", folder.path + "/client.pem", "--key", folder.path + "/client-key.pem"]
        let trusted = try curl(certificate)
        #expect(trusted.status == 0, "\(trusted)")
        let echo = try #require(JSONSerialization.jsonObject(with: Data(trusted.output.utf8)) as? [String: Any])
        let described = try await Self.opensslDescription(folder.path + "/client.pem")
        let seen = Self.headers(echo)
        #expect(seen["x-client-subject"] == described["subjectDN"] && seen["x-client-issuer"] == described["issuerDN"], "\(seen) \(described)")
        #expect(seen["x-client-serial"] == described["serialNumber"] && seen["x-client-not-after"] == described["notAfter"], "\(seen) \(described)")
        let token = "allow-pets-\(UUID().uuidString.prefix(8))"
        #expect(try curl(certificate + ["-H", "x-token: \(token)"], "/authz/pets").status == 0)
        let event = try #require(try await Self.authorizerCalls(token).events.first)
        let identity = (event["requestContext"] as? [String: Any])?["identity"] as? [String: Any]
        let sent = identity?["clientCert"] as? [String: Any]
        #expect(identity?["sourceIp"] as? String == "127.0.0.1" && sent?["subjectDN"] as? String == described["subjectDN"], "\(event)")
        #expect((sent?["validity"] as? [String: String])?["notBefore"] == described["notBefore"])
        let pem = try String(contentsOfFile: folder.path + "/client.pem", encoding: .utf8)
        #expect(sent?["clientCertPem"] as? String == pem)
        #expect(try curl([]).status != 0, "no client certificate")
        #expect(try curl(["--cert", folder.path + "/stranger.pem", "--key", folder.path + "/stranger-key.pem"]).status != 0, "a certificate the CA did not issue")
        #expect(try await fixture.arrivals() == 2)
    }

    /// How openssl describes the certificate at `path`, in API Gateway's `clientCert` terms: DNs
    /// in RFC 2253 form, the serial as colon-separated lowercase hex pairs, dates as printed.
    static func opensslDescription(_ path: String) async throws -> [String: String] {
        let run = try await KeyringStoreKeyTests.shell("openssl x509 -in '\(path)' -noout -subject -issuer -serial -startdate -enddate -nameopt RFC2253")
        var found: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            found[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        var hex = Array((found["serial"] ?? "").lowercased())
        if hex.count % 2 == 1 { hex.insert("0", at: 0) }
        let serial = stride(from: 0, to: hex.count, by: 2).map { String(hex[$0..<$0 + 2]) }.joined(separator: ":")
        return ["subjectDN": found["subject"] ?? "?", "issuerDN": found["issuer"] ?? "?", "serialNumber": serial,
                "notBefore": found["notBefore"] ?? "?", "notAfter": found["notAfter"] ?? "?"]
    }

    /// Two gateways on one PostgreSQL store share the quota exactly: three requests of a key
    /// with a quota of 3, split between them, pass; the fourth is over the limit at either.
    @Test(.enabled(if: Peers.postgresAvailable)) func twoGatewaysShareAQuotaThroughPostgreSQL() async throws {
        let folder = try ScratchFolder("multiauth-gateway-shared-usage")
        defer { folder.remove() }
        try Data(Self.plans.utf8).write(to: folder.url.appendingPathComponent("plans.yaml"))
        let database = try await PostgresStoreTests.freshDatabase()
        let extra = ["--usage-plans", folder.path + "/plans.yaml", "--store", database, "--api-key", "gold=gw-key-gold"]
        let environment = ["PGPASSWORD": Peers.postgresPassword]
        let first = try Fixture(extra, folder: folder, environment: environment)
        defer { #expect(first.gateway.stop() == 0) }
        let second = try Fixture(extra, folder: folder, environment: environment)
        defer { #expect(second.gateway.stop() == 0) }
        let gold = ["x-api-key": "gw-key-gold"]
        #expect(try await first.send(.get, "/keyed", gold).status == 200)
        #expect(try await second.send(.get, "/keyed", gold).status == 200)
        #expect(try await first.send(.get, "/keyed", gold).status == 200)
        let over = try await second.send(.get, "/keyed", gold)
        #expect(over.status == 429 && over.body["message"] as? String == "Limit Exceeded", "\(over.status) \(over.body)")
        #expect(try await first.send(.get, "/keyed", gold).status == 429)
        let used = try await PostgresStoreTests.psql("SELECT key || '=' || used FROM multiauth_usage", in: database)
        #expect(used.trimmingCharacters(in: .whitespacesAndNewlines) == "gold=3", "\(used)")
    }

    /// A TOKEN authorizer gets the identity as `authorizationToken` with the method ARN.
    @Test func aTokenAuthorizerGetsTheToken() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let token = "open-\(UUID().uuidString.prefix(8))"
        #expect(try await fixture.send(.get, "/authz/token", ["Authorization": token]).status == 200)
        let calls = try await Self.authorizerCalls(token)
        #expect(calls.count == 1 && calls.events.first?["type"] as? String == "TOKEN" && calls.events.first?["authorizationToken"] as? String == token)
        #expect(calls.events.first?["methodArn"] as? String == "arn:aws:execute-api:us-east-1:123456789012:multiauth/local/GET/authz/token")
    }

    /// SIGHUP reads the definition again: one that does not load keeps the one served (and the
    /// log says why); a good one adds its routes.
    @Test func aReloadKeepsTheDefinitionUntilANewOneLoads() async throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove(); #expect(fixture.gateway.stop() == 0) }
        let path = fixture.folder.url.appendingPathComponent("api.yaml")
        let served = try String(contentsOf: path, encoding: .utf8)
        try Data("openapi: 3.0.1\npaths: [not, a, definition]\n".utf8).write(to: path)
        fixture.gateway.send(signal: SIGHUP)
        #expect(try await fixture.gateway.logShows("reload failed, still serving the previous table"))
        #expect(try await fixture.send(.get, "/public").status == 200)
        let added = served.replacingOccurrences(of: "paths:\n", with: """
            paths:
              /added:
                get:
                  security: []
                  responses: {"200": {description: ok}}
                  x-amazon-apigateway-integration: {type: http_proxy, uri: "\(Peers.upstream)/\(fixture.prefix)/added"}

            """)
        try Data(added.utf8).write(to: path)
        #expect(try await fixture.send(.get, "/added").status == 403)
        fixture.gateway.send(signal: SIGHUP)
        #expect(try await fixture.gateway.logShows("reloaded, API"))
        #expect(try await fixture.send(.get, "/added").status == 200)
    }
}

import HTTPTypes
import MultiAuthInboundAuthorization
@testable import MultiAuthReverseProxy
import Testing

/// How `multiauth authz` reads the request a proxy asks about. The header names are the ones
/// each proxy's documentation gives: nginx's `auth_request` example (`X-Original-URI`, with
/// `X-Original-Method` set by the config), Caddy's `forward_auth` and Traefik's ForwardAuth
/// (`X-Forwarded-Method`, `-Uri`, `-Host`, `-Proto`), Envoy's `ext_authz` `path_prefix`.
struct AuthzContractTests {
    static func asked(_ fields: [(String, String)], path: String = "/auth", method: HTTPRequest.Method = .get) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: nil, authority: "authz.internal", path: path)
        for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return request
    }

    @Test func nginxNamesTheOriginalInXOriginalFields() throws {
        let asked = Self.asked([
            ("X-Original-Method", "POST"), ("X-Original-URI", "/pets?kind=cat"), ("X-Original-Host", "api.example.com"),
            ("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/…"), ("X-Amz-Date", "20261129T040000Z"),
        ])
        let original = try AuthzContract(proxy: .nginx).original(of: asked).get()
        #expect(original.method == .post && original.path == "/pets?kind=cat" && original.authority == "api.example.com")
        #expect(original.headerFields[HTTPField.Name("X-Original-URI")!] == nil && original.headerFields[.authorization] != nil)
        #expect(original.headerFields[HTTPField.Name("X-Amz-Date")!] == "20261129T040000Z")
    }

    /// nginx's own example sets only `X-Original-URI`: the method is the subrequest's, and the
    /// host the subrequest's `Host` (nginx passes the client's unless told otherwise).
    @Test func nginxWithoutAMethodKeepsTheSubrequests() throws {
        let original = try AuthzContract(proxy: .nginx).original(of: Self.asked([("X-Original-URI", "/a")])).get()
        #expect(original.method == .get && original.path == "/a" && original.authority == "authz.internal")
    }

    @Test func caddyAndTraefikNameItInXForwardedFields() throws {
        let asked = Self.asked([
            ("X-Forwarded-Method", "DELETE"), ("X-Forwarded-Uri", "/pets/7"), ("X-Forwarded-Host", "api.example.com"),
            ("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "203.0.113.9"), ("x-api-key", "k"),
        ])
        let original = try AuthzContract(proxy: .caddy).original(of: asked).get()
        #expect(original.method == .delete && original.path == "/pets/7" && original.authority == "api.example.com" && original.scheme == "https")
        #expect(original.headerFields[HTTPField.Name("X-Forwarded-For")!] == nil && original.headerFields[HTTPField.Name("x-api-key")!] == "k")
    }

    @Test func envoyAsksWithTheRequestItselfAfterItsPrefix() throws {
        let contract = AuthzContract(proxy: .envoy, pathPrefix: "/check")
        let original = try contract.original(of: Self.asked([], path: "/check/pets?x=1", method: .put)).get()
        #expect(original.method == .put && original.path == "/pets?x=1")
        let refused = contract.original(of: Self.asked([], path: "/other/pets")).failureValue
        #expect(refused?.status == .badRequest && refused?.reason.contains("path prefix") == true)
    }

    @Test(arguments: [
        (AuthzContract.Proxy.caddy, [("X-Forwarded-Method", "GET")]), (.traefik, [("X-Forwarded-Uri", "/a")]),
        (.caddy, [("X-Forwarded-Method", "G E T"), ("X-Forwarded-Uri", "/a")]), (.nginx, [("X-Original-URI", "http://elsewhere/a")]),
        (.nginx, [("X-Forwarded-Method", "GET"), ("X-Forwarded-Uri", "/a")]),
    ])
    func aProxyThatDoesNotSayIsAnswered400(proxy: AuthzContract.Proxy, fields: [(String, String)]) {
        let refused = AuthzContract(proxy: proxy).original(of: Self.asked(fields)).failureValue
        #expect(refused?.status == .badRequest && refused?.errorType == "BadRequestException")
    }

    /// Caddy copies the client's headers: an `X-Original-URI` the client sent naming a path it
    /// did sign is not read, and is not part of the request verified.
    @Test func anotherProxysFieldIsTheClientsAndIsNotRead() throws {
        let asked = Self.asked([("X-Forwarded-Method", "GET"), ("X-Forwarded-Uri", "/admin"), ("X-Original-URI", "/public")])
        let original = try AuthzContract(proxy: .caddy).original(of: asked).get()
        #expect(original.path == "/admin" && original.headerFields[HTTPField.Name("X-Original-URI")!] == nil)
    }

    /// nginx and Caddy never send the body: a signature over a payload hash is refused unless
    /// the operator trusts the signed hash; UNSIGNED-PAYLOAD, the empty body's hash and an
    /// unsigned request need nothing.
    @Test func aPayloadHashTheServiceDidNotSeeIsTrustedOnlyWhenAskedTo() throws {
        let hash = String(repeating: "ab", count: 32)
        let signed = Self.asked([("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/x"), ("x-amz-content-sha256", hash)])
        let refused = AuthzContract(proxy: .nginx).bodySHA256(unseen: signed).failureValue
        #expect(refused?.status == .forbidden && refused?.errorType == "InvalidSignatureException")
        #expect(try AuthzContract(proxy: .nginx, trustsSignedPayloadHash: true).bodySHA256(unseen: signed).get() == hash)
        let unsignedPayload = Self.asked([("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/x"), ("x-amz-content-sha256", "UNSIGNED-PAYLOAD")])
        #expect(try AuthzContract(proxy: .nginx).bodySHA256(unseen: unsignedPayload).get() == nil)
        let empty = Self.asked([
            ("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/x"),
            ("x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ])
        #expect(try AuthzContract(proxy: .nginx).bodySHA256(unseen: empty).get() == nil)
        #expect(try AuthzContract(proxy: .nginx).bodySHA256(unseen: Self.asked([("x-amz-content-sha256", hash), ("x-api-key", "k")])).get() == nil)
    }

    /// A signature over a body announced by Content-Length but not hashed in a header (botocore's
    /// default for execute-api) cannot be checked, trusted hash or not; an empty one can.
    @Test func aBodyAnnouncedButNotHashedInAHeaderIsRefused() throws {
        let authorization = ("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/x")
        for trusting in [false, true] {
            let contract = AuthzContract(proxy: .envoy, trustsSignedPayloadHash: trusting)
            let refused = contract.bodySHA256(unseen: Self.asked([authorization, ("Content-Length", "12")], method: .post)).failureValue
            #expect(refused?.status == .forbidden && refused?.message == "The request signature covers a payload this service cannot check.")
            #expect(try contract.bodySHA256(unseen: Self.asked([authorization, ("Content-Length", "0")], method: .post)).get() == nil)
            #expect(try contract.bodySHA256(unseen: Self.asked([("x-api-key", "k"), ("Content-Length", "12")], method: .post)).get() == nil)
        }
    }
}

/// A JWT's claims as answer fields (the rule is `VerifyingGateway.claimFields`' doc, by hand).
struct AuthzClaimFieldsTests {
    @Test func claimsBecomeFieldsAProxyCanMap() {
        let fields = VerifyingGateway.claimFields([
            "email": "a@example.com", "cognito:username": "alice", "bad": "line\nbreak", "big": String(repeating: "x", count: 1025),
        ])
        #expect(fields.map { "\($0.name): \($0.value)" } == ["X-MultiAuth-Claim-cognito-username: alice", "X-MultiAuth-Claim-email: a@example.com"])
        let many = VerifyingGateway.claimFields(Dictionary(uniqueKeysWithValues: (0..<40).map { ("c\($0)", "v") }))
        #expect(many.count == 32)
    }
}

extension Result {
    /// The error, when this is a failure.
    var failureValue: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// `multiauth authz` served in process, asked as nginx's `auth_request` and Caddy's
/// `forward_auth` ask: the answers API Gateway gives (403 `Forbidden` for a wrong key, 403
/// `Missing Authentication Token` for none), and 200 with the identity fields a proxy copies.
struct ServedAuthzTests {
    static func ask(_ port: Int, _ fields: String) async throws -> String {
        try await RawClient.exchange(port, "GET /auth HTTP/1.1\r\nHost: authz\r\n\(fields)Connection: close\r\n\r\n").text
    }

    @Test func aKnownKeyPassesWithItsNameAndAWrongOneIsRefusedAsAPIGatewayRefusesIt() async throws {
        try await ServedGateway.authz(apiKeys: ["key-one": "gold"], contract: AuthzContract(proxy: .nginx)) { port in
            let allowed = try await Self.ask(port, "X-Original-Method: POST\r\nX-Original-URI: /pets\r\nx-api-key: key-one\r\n")
            #expect(allowed.hasPrefix("HTTP/1.1 200 OK") && allowed.contains("X-MultiAuth-Principal: gold") && allowed.contains("X-MultiAuth-Mode: API_KEY"), "\(allowed)")
            let wrong = try await Self.ask(port, "X-Original-URI: /pets\r\nx-api-key: key-two\r\n")
            #expect(wrong.hasPrefix("HTTP/1.1 403") && wrong.contains("x-amzn-ErrorType: ForbiddenException") && wrong.hasSuffix(#"{"message":"Forbidden"}"#), "\(wrong)")
            let none = try await Self.ask(port, "X-Original-URI: /pets\r\n")
            #expect(none.hasPrefix("HTTP/1.1 403") && none.hasSuffix(#"{"message":"Missing Authentication Token"}"#), "\(none)")
            let misconfigured = try await Self.ask(port, "X-Forwarded-Method: GET\r\nX-Forwarded-Uri: /pets\r\nx-api-key: key-one\r\n")
            #expect(misconfigured.hasPrefix("HTTP/1.1 400"), "\(misconfigured)")
        }
    }
}

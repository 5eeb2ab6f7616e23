import Testing

/// The gateway served in process with a real upstream that records request lines: what
/// reaches the upstream, and what a client on one keep-alive connection reads back. Expected
/// answers are RFC 9112's (one answer per request, in order; none after `Connection: close`)
/// and API Gateway's (400 for a dot segment, 403 without a key).
@Suite(.serialized) struct ServedGatewayTests {
    static let yaml = """
        openapi: 3.0.1
        info: {title: served, version: "1"}
        paths:
          /open/{proxy+}:
            x-amazon-apigateway-any-method: {security: [], \(proxy("/base/open/{proxy}"))}
          /admin:
            x-amazon-apigateway-any-method: {security: [{api_key: []}], \(proxy("/base/admin"))}
        components:
          securitySchemes:
            api_key: {type: apiKey, name: x-api-key, in: header}
        """

    static func proxy(_ path: String) -> String {
        "responses: {\"200\": {description: ok}}, x-amazon-apigateway-integration: {type: http_proxy, httpMethod: ANY, uri: \"@UPSTREAM@\(path)\"}"
    }

    static func get(_ target: String, close: Bool = true) -> String {
        "GET \(target) HTTP/1.1\r\nHost: gw\r\n\(close ? "Connection: close\r\n" : "")\r\n"
    }

    /// The hardening issue's walk out of a public greedy route, in its spellings: none reaches
    /// the upstream, which records every request line it gets.
    @Test func noDotSegmentReachesTheUpstream() async throws {
        try await ServedGateway.with(Self.yaml, apiKeys: ["gw-key": "gold"]) { port, upstream in
            for target in [
                "/open/x%2F..%2F..%2Fadmin", "/open/x%2f..%2F..%2fadmin", "/open/x%252F..%252F..%252Fadmin", "/open/%252e%252E/%252e%252e/admin",
                "/open/x%5C..%5C..%5Cadmin", "/open/..;/..;/admin", "/open/%2e%2e/%2E%2E/admin", "/open/x/../../admin",
            ] {
                let answer = try await RawClient.exchange(port, Self.get(target))
                #expect(answer.text.statuses == ["400 Bad Request"], "\(target): \(answer.text)")
            }
            #expect(upstream.lines.isEmpty, "\(upstream.lines)")
            let open = try await RawClient.exchange(port, Self.get("/open/a%2Fb/c"))
            #expect(open.text.statuses == ["200 OK"], "\(open.text)")
            #expect(upstream.lines == ["GET /base/open/a/b/c HTTP/1.1"])
        }
    }

    /// A refused head pipelined behind a POST: the POST's answer comes first, then the 400,
    /// then the close; the POST ran once.
    @Test(arguments: ["GET /x HTTP/1.1\r\n\r\n", "GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "GET http://gw/x HTTP/1.1\r\nHost: gw\r\n\r\n"])
    func aRefusedHeadIsAnsweredAfterTheAnswersOwed(refused: String) async throws {
        try await ServedGateway.with(Self.yaml) { port, upstream in
            let post = "POST /open/p HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\n\r\nhi"
            let answer = try await RawClient.exchange(port, post + refused + Self.get("/open/never"))
            #expect(answer.text.statuses == ["200 OK", "400 Bad Request"], "\(answer.text)")
            #expect(answer.text.lowercased().contains("connection: close") && answer.text.contains("BadRequestException"), "\(answer.text)")
            #expect(answer.closed)
            #expect(upstream.lines == ["POST /base/open/p HTTP/1.1"])
        }
    }

    /// An upgrade request without an upgrader: answered, then the connection closes, never
    /// left waiting for a next request the decoder will not read.
    @Test func anUpgradeRequestIsAnsweredAndTheConnectionCloses() async throws {
        try await ServedGateway.with(Self.yaml) { port, _ in
            let upgrade = "GET /open/a HTTP/1.1\r\nHost: gw\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n"
            let answer = try await RawClient.exchange(port, upgrade + Self.get("/open/b", close: false))
            #expect(answer.text.statuses == ["200 OK"], "\(answer.text)")
            #expect(answer.text.lowercased().contains("connection: close"), "\(answer.text)")
            #expect(answer.closed, "the connection was left open")
        }
    }

    /// Framing errors (RFC 9112 §6.3: a length beside chunks, two lengths) get one 400 after
    /// the answers owed, and the connection closes.
    @Test(arguments: [
        "POST /open/a HTTP/1.1\r\nHost: gw\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /open/a HTTP/1.1\r\nHost: gw\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    ])
    func aFramingErrorIsAnswered400AndTheConnectionCloses(bad: String) async throws {
        try await ServedGateway.with(Self.yaml) { port, upstream in
            let answer = try await RawClient.exchange(port, Self.get("/open/first", close: false) + bad + Self.get("/open/never"))
            #expect(answer.text.statuses == ["200 OK", "400 Bad Request"], "\(answer.text)")
            #expect(answer.closed, "the connection was left open")
            #expect(upstream.lines == ["GET /base/open/first HTTP/1.1"])
        }
    }

    /// A chunk that cannot be read in the middle of a body: that request gets one answer, a
    /// 400 naming the body, and the connection closes; nothing reaches the upstream whole.
    @Test func aBrokenChunkGetsOneAnswerAndTheClose() async throws {
        try await ServedGateway.with(Self.yaml) { port, _ in
            let broken = "POST /open/a HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\nzz\r\nxx\r\n0\r\n\r\n"
            let answer = try await RawClient.exchange(port, broken + Self.get("/open/never"))
            #expect(answer.text.statuses == ["400 Bad Request"], "\(answer.text)")
            #expect(answer.closed)
        }
    }

    /// A request refused before its `100 Continue`, its body and another head sent anyway:
    /// one answer, marked `Connection: close`, and nothing after it.
    @Test func aRefusedExpectContinueGetsOneAnswerThenTheClose() async throws {
        try await ServedGateway.with(Self.yaml, apiKeys: ["gw-key": "gold"]) { port, upstream in
            let refused = "POST /admin HTTP/1.1\r\nHost: gw\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello"
            let answer = try await RawClient.exchange(port, refused + Self.get("/open/after", close: false))
            #expect(answer.text.statuses == ["403 Forbidden"], "\(answer.text)")
            #expect(answer.text.lowercased().contains("connection: close"), "\(answer.text)")
            #expect(answer.closed)
            #expect(upstream.lines.isEmpty, "\(upstream.lines)")
        }
    }

    /// A route that needs a key: one `x-api-key` naming a known key goes through; the same key
    /// sent twice is refused as a wrong key would be (its joined value names no key), before
    /// the upstream.
    @Test func aKeyRouteTakesOneKeyAndRefusesARepeatedOne() async throws {
        try await ServedGateway.with(Self.yaml, apiKeys: ["gw-key": "gold"]) { port, upstream in
            let one = try await RawClient.exchange(port, "GET /admin HTTP/1.1\r\nHost: gw\r\nx-api-key: gw-key\r\nConnection: close\r\n\r\n")
            #expect(one.text.statuses == ["200 OK"], "\(one.text)")
            let twice = try await RawClient.exchange(port, "GET /admin HTTP/1.1\r\nHost: gw\r\nx-api-key: gw-key\r\nx-api-key: gw-key\r\nConnection: close\r\n\r\n")
            #expect(twice.text.statuses == ["403 Forbidden"], "\(twice.text)")
            #expect(upstream.lines == ["GET /base/admin HTTP/1.1"])
        }
    }
}

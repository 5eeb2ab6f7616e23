import HTTPTypes
import Logging
import MultiAuthCore
@testable import MultiAuthReverseProxy
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

/// The small rules every forwarded exchange passes, against hand-derived cases: which
/// requests are decided on their head alone (RFC 9110: no body, no interim answer asked for),
/// how a `Host` names a route, what of an upstream's answer is relayed (RFC 9110 §7.6.1's
/// hop-by-hop fields dropped, `Content-Length` kept), the signing proxy's refusal of web pages
/// and rebound hosts, and the in-order 400 after a decoding error.
struct ForwardingRulesTests {
    static func head(_ method: HTTPRequest.Method = .get, authority: String = "127.0.0.1:8080", _ fields: [(String, String)] = []) -> HTTPRequest {
        var head = HTTPRequest(method: method, scheme: "http", authority: authority, path: "/")
        for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return head
    }

    @Test(arguments: [
        ([], true), ([("Content-Length", "0")], true), ([("Content-Length", "5")], false), ([("Transfer-Encoding", "chunked")], false),
        ([("Expect", "100-continue")], false), ([("Upgrade", "websocket")], false), ([("X-Other", "1")], true),
    ])
    func aHeadIsDecidedAtOnceOnlyWithoutABody(fields: [(String, String)], atOnce: Bool) {
        #expect(Forwarding.decidesAtOnce(Self.head(.post, fields)) == atOnce)
    }

    /// An event stream (WHATWG HTML §9.2: `text/event-stream`, parameters allowed) is named by
    /// the answer's first `Content-Type`; its upstream deadline then bounds each silence.
    @Test(arguments: [
        ([("Content-Type", "text/event-stream")], true), ([("Content-Type", "text/event-stream; charset=utf-8")], true),
        ([("X-Other", "text/event-stream"), ("Content-Type", "text/event-stream")], true), ([("Content-Type", "text/plain")], false),
        ([("Content-Type", "text/plain"), ("Content-Type", "text/event-stream")], false), ([("X-Other", "text/event-stream")], false), ([], false),
    ])
    func anEventStreamIsNamedByTheFirstContentType(fields: [(String, String)], streams: Bool) {
        #expect(Forwarding.announcesEventStream(Self.head(.get, fields).headerFields) == streams)
    }

    @Test func connectIsNeverDecidedOnItsHead() {
        #expect(!Forwarding.decidesAtOnce(Self.head(.connect)))
    }

    @Test(arguments: [("API.Example.com:8443", "api.example.com"), ("[::1]:80", "[::1]"), ("[::1]", "[::1]"), ("host", "host"), ("", "")])
    func aHostNamesItsRouteWithoutPortOrCase(authority: String, name: String) {
        #expect(Forwarding.hostName(authority) == name)
    }

    @Test func onlyEndToEndFieldsOfAnAnswerAreRelayed() {
        var upstream = HTTPFields()
        for (name, value) in [("Connection", "close"), ("Keep-Alive", "5"), ("Transfer-Encoding", "chunked"), ("Content-Length", "3"), ("X-Id", "1")] {
            upstream.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        #expect(UpstreamForwarder.forwardedFields(upstream).map(\.name.canonicalName) == ["content-length", "x-id"])
    }

    @Test(arguments: [
        ("127.0.0.1:8080", [], true), ("localhost:8080", [], true), ("rebound.example", [], false), ("api.local", [], true),
        ("127.0.0.1:8080", [("Origin", "http://evil.example")], false), ("127.0.0.1:8080", [("Sec-Fetch-Site", "cross-site")], false),
        ("127.0.0.1:8080", [("Sec-Fetch-Site", "none")], true), ("127.0.0.1:8080", [("Origin", "http://127.0.0.1:8080")], true),
        ("127.0.0.1:8080", [("Origin", "http://app.local:3000")], true),
    ])
    func theSigningProxyRefusesPagesAndReboundHosts(authority: String, fields: [(String, String)], passes: Bool) {
        let policy = CrossSitePolicy(hosts: ["api.local"], origins: ["http://app.local:3000"])
        #expect((policy.refusal(Self.head(authority: authority, fields)) == nil) == passes)
    }

    @Test func everyBodyRefusalHasItsAPIGatewayStatus() {
        let logger = Logger.disabled
        #expect(UpstreamForwarder.bodyRefusal(.tooLarge(body: "b", limit: 1), logger: logger).head.status == .contentTooLarge)
        #expect(UpstreamForwarder.bodyRefusal(.unreadable(body: "b", reason: "r"), logger: logger).head.status == .badRequest)
    }

    /// A decoding error behind a complete request waits for that request's answer; then one
    /// 400 with `Connection: close`, and the connection closes.
    @Test func aDecodingErrorIsAnsweredAfterTheAnswersOwed() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([ByteToMessageHandler(HTTPRequestDecoder()), ClientHTTP1Codec()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        _ = try? channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing is answered before the first request's answer")
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentLength: "0"])), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { text += buffer.readString(length: buffer.readableBytes) ?? "" }
        #expect(text.statuses == ["200 OK", "400 Bad Request"], "\(text)")
        #expect(text.lowercased().hasSuffix("connection: close\r\ncontent-length: 0\r\n\r\n"), "\(text)")
        #expect(!channel.isActive, "the connection closed after the 400")
    }

    @Test func anErrorAnswerIsInAPIGatewaysForm() {
        let answer = UpstreamForwarder.errorResponse(.forbidden, "AccessDeniedException", "Forbidden")
        #expect(answer.head.status == .forbidden && answer.head.headerFields[HTTPField.Name("x-amzn-ErrorType")!] == "AccessDeniedException")
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"message":"Forbidden"}"#)
    }

    @Test(arguments: [
        ([("Connection", "Upgrade"), ("Upgrade", "websocket")], true), ([("Connection", "keep-alive, upgrade"), ("Upgrade", "h2c")], true),
        ([("Connection", "Upgrade")], false), ([("Upgrade", "websocket")], false), ([("Connection", "close")], false),
    ])
    func anUpgradeIsBothFields(fields: [(String, String)], upgrade: Bool) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
        for (name, value) in fields { head.headers.add(name: name, value: value) }
        #expect(RequestHeadRules.asksUpgrade(head) == upgrade)
    }

    @Test func connectAndTheAsteriskFormAreLeftToTheForwardersAnswers() {
        var connect = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "example.com:443")
        connect.headers.add(name: "Host", value: "example.com:443")
        var options = HTTPRequestHead(version: .http1_1, method: .OPTIONS, uri: "*")
        options.headers.add(name: "Host", value: "a")
        #expect(RequestHeadRules.problem(connect) == nil && RequestHeadRules.problem(options) == nil)
        let head = HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil)
        #expect(UpstreamForwarder.refusal(of: head)?.head.status == .methodNotAllowed)
    }
}

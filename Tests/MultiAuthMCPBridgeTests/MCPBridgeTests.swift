import HTTPTypes
import Logging
import MultiAuthAWSClient
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthHTTP
import MultiAuthMCPBridge
import MultiAuthTesting
import Synchronization
import Testing

/// The stdio-to-streamable-HTTP bridge against a scripted MCP server: what it sends (MCP's
/// 2025-06-18 transport rules: POST per message, the Accept pair, the session and protocol
/// version headers, Last-Event-ID to resume, DELETE at the end) and what the client reads.
struct MCPBridgeTests {
    /// A bridge over `steps`, fed one line at a time: each line waits for the outputs it
    /// should produce before the next goes.
    final class Harness: Sendable {
        let server: ScriptedSender
        let bridge: MCPBridge
        let outputs: AsyncStream<String>
        private let emit: AsyncStream<String>.Continuation
        let input: AsyncStream<[UInt8]>
        private let feed: AsyncStream<[UInt8]>.Continuation

        init(_ steps: [ScriptedSender.Step], readOnly: Bool = false) {
            server = ScriptedSender(steps)
            var retry = RetryStrategy.httpStandard
            retry.backoff.maxAttempts = 1
            let client = AuthorizedHTTPClient(transport: server, authorizer: NoAuthorizer(), retry: retry)
            (outputs, emit) = AsyncStream.makeStream(of: String.self)
            (input, feed) = AsyncStream.makeStream(of: [UInt8].self)
            let emit = emit
            bridge = MCPBridge(
                client: client, endpoint: HTTPRequest(method: .post, scheme: "https", authority: "mcp.example", path: "/mcp"), readOnly: readOnly,
                logger: Logger(label: "mcp", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { emit.yield(String(decoding: $0, as: UTF8.self)) }
        }

        /// Sends `line` and returns the next `count` outputs.
        func send(_ line: String, expecting count: Int) async -> [String] {
            feed.yield(Array(line.utf8))
            var iterator = outputs.makeAsyncIterator()
            var got: [String] = []
            while got.count < count, let next = await iterator.next() { got.append(next) }
            return got
        }

        /// Ends the input and waits for the bridge to finish.
        func end(_ running: Task<Void, Never>) async {
            feed.finish()
            await running.value
        }

        func start() -> Task<Void, Never> {
            let (bridge, input) = (bridge, input)
            return Task { await bridge.run(input) }
        }
    }

    static let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
    static let initialized = #"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#

    static func json(_ text: String, session: String? = nil) -> ScriptedSender.Step {
        .answer(status: 200, headers: [("Content-Type", "application/json")] + (session.map { [("Mcp-Session-Id", $0)] } ?? []), body: Array(text.utf8))
    }

    static func field(_ request: HTTPRequest, _ name: String) -> String? { request.headerFields[HTTPField.Name(name)!] }

    @Test func aSessionCarriesItsIdAndVersionAndEndsWithADelete() async throws {
        let harness = Harness([
            Self.json(Self.initialized, session: "s-123"),
            .chunks(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                chunks: [Array("id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,".utf8),
                         Array("\"result\":{\"content\":[]}}\n\n".utf8)]),
            .answer(status: 202, headers: [], body: []), .answer(status: 200, headers: [], body: []),
        ])
        let running = harness.start()
        #expect(await harness.send(Self.initialize, expecting: 1) == [Self.initialized])
        let streamed = await harness.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#, expecting: 2)
        #expect(streamed == [
            #"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#, #"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
        ])
        // A notification is answered 202 with nothing for the client; the input's end then
        // waits for it before the DELETE.
        #expect(await harness.send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#, expecting: 0).isEmpty)
        await harness.end(running)
        let sent = harness.server.sent
        #expect(sent.map(\.request.method) == [.post, .post, .post, .delete])
        #expect(Self.field(sent[0].request, "Accept") == "application/json, text/event-stream")
        #expect(Self.field(sent[0].request, "Content-Type") == "application/json")
        #expect(Self.field(sent[0].request, "Mcp-Session-Id") == nil)
        #expect(sent.dropFirst().allSatisfy { Self.field($0.request, "Mcp-Session-Id") == "s-123" })
        #expect(Self.field(sent[2].request, "MCP-Protocol-Version") == "2025-06-18")
        #expect(String(decoding: sent[0].body, as: UTF8.self) == Self.initialize)
    }

    @Test func aStreamCutBeforeItsAnswerIsResumedFromTheLastEventID() async throws {
        let harness = Harness([
            .chunks(status: 200, headers: [("Content-Type", "text/event-stream")],
                    chunks: [Array("id: e7\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n".utf8)],
                    then: .connectionReset(host: "mcp.example", reason: "cut")),
            .chunks(status: 200, headers: [("Content-Type", "text/event-stream")], chunks: [Array("id: e8\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n\n".utf8)]),
        ])
        let running = harness.start()
        let got = await harness.send(#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t"}}"#, expecting: 2)
        #expect(got.last == #"{"jsonrpc":"2.0","id":"a","result":{}}"#)
        await harness.end(running)
        let resumed = harness.server.sent[1].request
        #expect(resumed.method == .get && Self.field(resumed, "Last-Event-ID") == "e7" && Self.field(resumed, "Accept") == "text/event-stream")
    }

    @Test func whatTheServerDoesNotAnswerIsAnsweredWithAJSONRPCError() async throws {
        let harness = Harness([
            .answer(status: 403, headers: [("x-amzn-ErrorType", "InvalidSignatureException")], body: Array(#"{"message":"Signature expired"}"#.utf8)),
            .failure(.connectionFailed(host: "mcp.example", reason: "refused")),
        ])
        let running = harness.start()
        let refused = await harness.send(#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#, expecting: 1)
        let error = try JSONValue.decode(try #require(refused.first)).objectValue?["error"]?.objectValue
        #expect(error?["code"] == .number(-32000))
        #expect(error?["message"]?.stringValue == "multiauth mcp-proxy: the server answered HTTP 403: Signature expired")
        let failed = await harness.send(#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#, expecting: 1)
        let reason = try JSONValue.decode(try #require(failed.first)).objectValue
        #expect(reason?["id"] == .number(6) && reason?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix("multiauth mcp-proxy: the call failed") == true)
        let garbage = await harness.send("not json", expecting: 1)
        #expect(garbage.first?.contains(#""code":-32700"#) == true && garbage.first?.contains(#""id":null"#) == true)
        await harness.end(running)
    }

    @Test func readOnlyListsAndCallsOnlyReadOnlyTools() async throws {
        let tools = #"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"read","annotations":{"readOnlyHint":true}},{"name":"write","annotations":{"readOnlyHint":false}},{"name":"plain"}]}}"#
        let harness = Harness([Self.json(tools), Self.json(#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#)], readOnly: true)
        let running = harness.start()
        let listed = await harness.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, expecting: 1)
        let names = try JSONValue.decode(try #require(listed.first)).objectValue?["result"]?.objectValue?["tools"]
        #expect(names == .array([.object(["name": .string("read"), "annotations": .object(["readOnlyHint": .bool(true)])])]))
        let refused = await harness.send(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write"}}"#, expecting: 1)
        #expect(refused.first?.contains(#""code":-32601"#) == true)
        let called = await harness.send(#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read"}}"#, expecting: 1)
        #expect(called == [#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#])
        await harness.end(running)
        #expect(harness.server.sent.count == 2, "the refused call never reached the server")
    }

    @Test func anAnswerPrintedOnSeveralLinesIsWrittenOnOne() async throws {
        let harness = Harness([Self.json("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9,\n  \"result\": {\"text\": \"a\\nb\"}\n}")])
        let running = harness.start()
        let got = await harness.send(#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#, expecting: 1)
        #expect(got == [#"{   "jsonrpc": "2.0",   "id": 9,   "result": {"text": "a\nb"} }"#])
        await harness.end(running)
    }

    /// MCP 2026-07-28 routes a POST by fields mirroring the message (its transports page):
    /// Mcp-Method, Mcp-Name for the name-bearing methods, MCP-Protocol-Version from `_meta`;
    /// a value that is not plain ASCII goes as `=?base64?…?=` ("héllo" is aMOpbGxv in base64).
    @Test func modernRequestsCarryTheirRoutingFields() async throws {
        let harness = Harness([Self.json(#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#)])
        let running = harness.start()
        let call = #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        _ = await harness.send(call, expecting: 1)
        await harness.end(running)
        let sent = try #require(harness.server.sent.first).request
        #expect(Self.field(sent, "Mcp-Method") == "tools/call")
        #expect(Self.field(sent, "Mcp-Name") == "=?base64?aMOpbGxv?=")
        #expect(Self.field(sent, "MCP-Protocol-Version") == "2026-07-28")
    }
}

package import HTTPTypes
package import Logging
package import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthHTTP
import Synchronization

/// One MCP session carried from stdio (newline-delimited JSON-RPC, what an agent host speaks
/// to a local server) to a remote server over MCP's streamable HTTP transport, every request
/// authorized by ``MultiAuthAuthorization/AuthorizedHTTPClient`` (SigV4 from the credential
/// chain, refreshed as the session runs).
///
/// Each message read is POSTed on its own, so a slow tool call never holds up the others.
/// An answer comes back as JSON or as an event stream, whose messages are written as they
/// arrive; a stream cut before its answer is resumed with `Last-Event-ID`. The session id
/// the server gives at `initialize` goes on every later request, and the session is ended
/// with a `DELETE` once the input ends. A request the server does not answer (a transport
/// failure, an HTTP error status) is answered to the client with a JSON-RPC error: the client
/// never waits for an answer that cannot come.
package final class MCPBridge: Sendable {
    let client: AuthorizedHTTPClient
    let endpoint: HTTPRequest
    let readOnly: Bool
    let write: @Sendable ([UInt8]) -> Void
    let logger: Logger
    /// How many times a cut event stream is resumed before the request is answered with an error.
    let resumptions: Int
    let state = Mutex(SessionState())

    struct SessionState {
        var sessionID: String?
        var protocolVersion: String?
        /// With `--read-only`: the tools the server annotated `readOnlyHint: true`.
        var readOnlyTools: Set<String> = []
    }

    /// A bridge to `endpoint` (its URL; the method is set per call) through `client`. Each
    /// message for the client, one JSON text without newlines, goes to `write`, which ends it
    /// with one. With `readOnly`, only tools the server annotates `readOnlyHint` are listed
    /// and called.
    package init(
        client: AuthorizedHTTPClient, endpoint: HTTPRequest, readOnly: Bool, resumptions: Int = 3, logger: Logger,
        write: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.client = client
        self.endpoint = endpoint
        self.readOnly = readOnly
        self.resumptions = resumptions
        self.logger = logger
        self.write = write
    }

    /// Carries every line of `input` until it ends, waits for the answers under way, then
    /// ends the session.
    package func run<Lines: AsyncSequence<[UInt8], Never> & Sendable>(_ input: Lines) async {
        await withDiscardingTaskGroup { group in
            for await line in input where line.contains(where: { !Self.isSpace($0) }) {
                group.addTask { await self.carry(line) }
            }
        }
        await endSession()
    }

    /// The session id the server gave, if any.
    package var sessionID: String? { state.withLock { $0.sessionID } }

    private func carry(_ line: [UInt8]) async {
        guard let message = JSONRPCMessage(line) else {
            write(JSONRPCMessage.error(id: nil, code: JSONRPCMessage.parseError, message: "multiauth mcp-proxy: a line is not one JSON-RPC message"))
            return
        }
        if let refusal = readOnlyRefusal(message) {
            write(refusal)
            return
        }
        await post(line, message: message)
    }

    /// POSTs one message and writes what comes back.
    private func post(_ line: [UInt8], message: JSONRPCMessage) async {
        var request = headed(.post, accept: "application/json, text/event-stream", contentType: true)
        for (name, value) in Self.routingFields(message) { request.headerFields[name] = value }
        let (answered, reader, outcome) = await exchange(request, body: .bytes(line), answering: message.requestID) { head in
            if case .request(_, "initialize") = message.kind { self.learnSession(from: head) }
        }
        guard let id = message.requestID, !answered else { return }
        // An event stream cut (or ended) before its answer: the server can replay it from the last event id.
        if let last = reader?.events.lastEventID, !last.isEmpty, await resumed(after: last, answering: id) { return }
        switch outcome {
        case .failure(let error):
            write(JSONRPCMessage.error(id: id, code: JSONRPCMessage.bridgeError, message: "multiauth mcp-proxy: the call failed: \(error)"))
        case .success(let response) where response.status >= 400:
            write(Self.statusError(id: id, response))
        case .success:
            write(JSONRPCMessage.error(id: id, code: JSONRPCMessage.bridgeError, message: "multiauth mcp-proxy: the server's answer ended before the answer to the request"))
        }
    }

    /// Sends `request` and writes the messages of its answer as they arrive (`began` sees
    /// the answer's head first): whether the answer to `id` was among them, the reader (an
    /// event stream's last id), and how the call ended.
    private func exchange(
        _ request: HTTPRequest, body: OutgoingBody, answering id: JSONValue?, began: @Sendable (HTTPResponse) -> Void = { _ in }
    ) async -> (Bool, AnswerReader?, Result<ReceivedResponse, RequestError>) {
        let relay = ResponseRelay()
        async let sent = send(request, body: body, relay: relay)
        var answered = false
        var reader: AnswerReader?
        if case .streaming(let head) = await relay.start() {
            began(head)
            var streamed = AnswerReader(head)
            do {
                while let chunk = try await relay.next() { answered = deliver(try streamed.read(chunk), answering: id) || answered }
            } catch {
                logger.debug("the answer ended early", metadata: ["reason": "\(error)"])
                relay.cancel()
            }
            answered = deliver(streamed.finish(), answering: id) || answered
            reader = streamed
        }
        let outcome = await sent
        if reader == nil, case .success(let response) = outcome, response.status < 400 {
            // A sender that kept the body in memory.
            began(response.head)
            var whole = AnswerReader(response.head)
            answered = deliver((try? whole.read(response.body)) ?? [], answering: id) || answered
            answered = deliver(whole.finish(), answering: id) || answered
            reader = whole
        }
        return (answered, reader, outcome)
    }

    private func send(_ request: HTTPRequest, body: OutgoingBody, relay: ResponseRelay) async -> Result<ReceivedResponse, RequestError> {
        do throws(RequestError) {
            let (response, _) = try await client.send(request, body: body, responseBody: .relay(relay))
            relay.end()
            return .success(response)
        } catch {
            relay.end(failure: error)
            return .failure(error)
        }
    }

    /// Writes `messages`: true when one answers `id`.
    private func deliver(_ messages: [[UInt8]], answering id: JSONValue?) -> Bool {
        var answered = false
        for message in messages where deliver(message, answering: id) { answered = true }
        return answered
    }

    /// Writes one message from the server (its tool list filtered with `--read-only`): true
    /// when it answers `id`.
    private func deliver(_ bytes: [UInt8], answering id: JSONValue?) -> Bool {
        guard let message = JSONRPCMessage(bytes) else {
            logger.info("the server sent something that is not a JSON-RPC message; left out")
            return false
        }
        if case .response(let answered) = message.kind, let result = message.result {
            if result["protocolVersion"] != nil { state.withLock { $0.protocolVersion = result["protocolVersion"]?.stringValue } }
            if readOnly, let tools = result["tools"] {
                write(Array(readOnlyList(message.value, tools: tools).description.utf8))
                return answered == id
            }
        }
        write(Self.oneLine(bytes))
        if case .response(let answered) = message.kind { return answered == id }
        return false
    }

    /// Opens the stream again from `lastEventID` (a GET with `Last-Event-ID`), up to
    /// ``resumptions`` times: true once the answer to `id` came.
    private func resumed(after lastEventID: String, answering id: JSONValue) async -> Bool {
        var from = lastEventID
        for _ in 0..<resumptions {
            var request = headed(.get, accept: "text/event-stream", contentType: false)
            request.headerFields[Self.lastEventIDField] = from
            let (answered, reader, _) = await exchange(request, body: .empty, answering: id)
            if answered { return true }
            if let last = reader?.events.lastEventID, !last.isEmpty { from = last }
        }
        return false
    }

    /// Ends the session the server opened (a `DELETE` with its id); a server that keeps no
    /// sessions, or refuses, is left as it is.
    private func endSession() async {
        guard sessionID != nil else { return }
        let request = headed(.delete, accept: nil, contentType: false)
        if case (_, _, .failure(let error)) = await exchange(request, body: .empty, answering: nil) {
            logger.debug("the session's DELETE failed", metadata: ["reason": "\(error)"])
        }
    }

    private func learnSession(from head: HTTPResponse) {
        guard let id = head.headerFields[Self.sessionIDField] else { return }
        state.withLock { $0.sessionID = id }
    }

    /// The endpoint with `method` and the session's fields.
    private func headed(_ method: HTTPRequest.Method, accept: String?, contentType: Bool) -> HTTPRequest {
        var request = endpoint
        request.method = method
        if let accept { request.headerFields[.accept] = accept }
        if contentType { request.headerFields[.contentType] = "application/json" }
        let (session, version) = state.withLock { ($0.sessionID, $0.protocolVersion) }
        if let session { request.headerFields[Self.sessionIDField] = session }
        if let version { request.headerFields[Self.protocolVersionField] = version }
        return request
    }

    /// The fields MCP's 2026-07-28 revision routes a POST by, mirrored from the message: its
    /// method, the name it bears (a tool's, a prompt's, a resource's URI) and the protocol
    /// version in its `_meta`. Servers of earlier revisions ignore them.
    static func routingFields(_ message: JSONRPCMessage) -> [(HTTPField.Name, String)] {
        let method: String
        switch message.kind {
        case .request(_, let name), .notification(let name): method = name
        case .response: return []
        }
        var fields = [(methodField, headerValue(method))]
        let nameKey = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"][method]
        if let nameKey, let name = message.params[nameKey]?.stringValue { fields.append((nameField, headerValue(name))) }
        if let version = message.params["_meta"]?.objectValue?["io.modelcontextprotocol/protocolVersion"]?.stringValue {
            fields.append((protocolVersionField, headerValue(version)))
        }
        return fields
    }

    /// `value` as MCP carries it in a field: as it is when it is printable ASCII without edge
    /// spaces, else `=?base64?…?=`.
    static func headerValue(_ value: String) -> String {
        let plain = value.utf8.allSatisfy { (0x20...0x7E).contains($0) } && value.first != " " && value.last != " "
            && !(value.hasPrefix("=?base64?") && value.hasSuffix("?="))
        return plain ? value : "=?base64?" + Base64.encode(Array(value.utf8)) + "?="
    }

    static let methodField = HTTPField.Name("Mcp-Method")!
    static let nameField = HTTPField.Name("Mcp-Name")!
    static let sessionIDField = HTTPField.Name("Mcp-Session-Id")!
    static let protocolVersionField = HTTPField.Name("MCP-Protocol-Version")!
    static let lastEventIDField = HTTPField.Name("Last-Event-ID")!

    /// A JSON-RPC error for an HTTP error answer: its status, and the server's `message`
    /// (API Gateway's) when it has one.
    static func statusError(id: JSONValue, _ response: ReceivedResponse) -> [UInt8] {
        let said = (try? JSONDecoding.decode(JSONValue.self, from: response.body, what: "the error body"))?.objectValue?["message"]?.stringValue
        var text = "multiauth mcp-proxy: the server answered HTTP \(response.status)"
        if let said { text += ": " + said.prefix(200) }
        return JSONRPCMessage.error(id: id, code: JSONRPCMessage.bridgeError, message: text, data: .object(["status": .number(Double(response.status))]))
    }

    /// `bytes` with line breaks between tokens made spaces: a newline inside a JSON string is
    /// always escaped, so any raw one is whitespace, and stdio frames messages by line.
    static func oneLine(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}

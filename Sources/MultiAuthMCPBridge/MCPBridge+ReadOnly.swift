import MultiAuthCore
import Synchronization

/// `--read-only`: as `mcp-proxy-for-aws` does, tools the server does not annotate
/// `readOnlyHint: true` are left out of `tools/list` and refused by `tools/call`.
extension MCPBridge {
    /// JSON-RPC's code for a method (here, a tool) that is not available.
    static let toolNotAvailable = -32601

    /// The refusal of a call to a tool not known to be read-only, or nil when it may go.
    func readOnlyRefusal(_ message: JSONRPCMessage) -> [UInt8]? {
        guard readOnly, case .request(let id, "tools/call") = message.kind else { return nil }
        let name = message.params["name"]?.stringValue ?? ""
        guard !state.withLock({ $0.readOnlyTools.contains(name) }) else { return nil }
        return JSONRPCMessage.error(
            id: id, code: Self.toolNotAvailable,
            message: "multiauth mcp-proxy: tool '\(name.prefix(100))' is not annotated readOnlyHint, and --read-only is set")
    }

    /// A `tools/list` answer with only the read-only tools, which are remembered.
    func readOnlyList(_ answer: JSONValue, tools: JSONValue) -> JSONValue {
        guard case .array(let listed) = tools, var object = answer.objectValue, var result = object["result"]?.objectValue else { return answer }
        let kept = listed.filter { $0.objectValue?["annotations"]?.objectValue?["readOnlyHint"] == .bool(true) }
        let names = kept.compactMap { $0.objectValue?["name"]?.stringValue }
        state.withLock { $0.readOnlyTools.formUnion(names) }
        result["tools"] = .array(kept)
        object["result"] = .object(result)
        return .object(object)
    }
}

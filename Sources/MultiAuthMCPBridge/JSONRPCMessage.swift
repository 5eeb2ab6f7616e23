package import MultiAuthCore

/// One JSON-RPC 2.0 message as MCP carries it, read only as far as the bridge needs: its
/// kind, id and method; the bytes are forwarded as received.
package struct JSONRPCMessage: Sendable {
    /// What the message is.
    package enum Kind: Sendable, Equatable {
        /// A request: it expects an answer with its id.
        case request(id: JSONValue, method: String)
        /// A notification: no answer.
        case notification(method: String)
        /// An answer to a request of the other side.
        case response(id: JSONValue)
    }

    /// What the message is.
    package let kind: Kind
    /// The whole message, parsed.
    package let value: JSONValue

    /// The message in `bytes`, or nil when they are not one JSON-RPC message (a batch, which
    /// MCP's 2025-06-18 revision removed, is not one either).
    package init?(_ bytes: [UInt8]) {
        guard let value = try? JSONDecoding.decode(JSONValue.self, from: bytes, what: "a JSON-RPC message"), let object = value.objectValue else {
            return nil
        }
        let id = object["id"].flatMap { $0 == .null ? nil : $0 }
        if let method = object["method"]?.stringValue {
            kind = id.map { .request(id: $0, method: method) } ?? .notification(method: method)
        } else if let id, object["result"] != nil || object["error"] != nil {
            kind = .response(id: id)
        } else {
            return nil
        }
        self.value = value
    }

    /// The request's id, when it is a request.
    package var requestID: JSONValue? {
        if case .request(let id, _) = kind { id } else { nil }
    }

    /// The `params` member.
    package var params: [String: JSONValue] { value.objectValue?["params"]?.objectValue ?? [:] }

    /// The `result` member of an answer.
    package var result: [String: JSONValue]? { value.objectValue?["result"]?.objectValue }

    /// A JSON-RPC error answer to `id` (null when the request's id could not be read), one line.
    package static func error(id: JSONValue?, code: Int, message: String, data: JSONValue? = nil) -> [UInt8] {
        var error: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        if let data { error["data"] = data }
        return Array(JSONValue.object(["jsonrpc": .string("2.0"), "id": id ?? .null, "error": .object(error)]).description.utf8)
    }

    /// JSON-RPC's code for text that is not a message.
    package static let parseError = -32700
    /// The bridge's code for a call the server did not answer (a transport failure, an HTTP
    /// error status): JSON-RPC's range for implementation-defined server errors.
    package static let bridgeError = -32000
}

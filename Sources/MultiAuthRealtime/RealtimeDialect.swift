public import MultiAuthCore

/// One AppSync real-time protocol (GraphQL subscriptions, or Events channels): how to open a
/// connection, subscribe and unsubscribe, and what the server's frames mean. The engine
/// (``RealtimeConnection``) is the same for both.
public protocol RealtimeDialect: Sendable {
    /// The WebSocket endpoint without its authorization, for logs and messages.
    var endpoint: String { get }
    /// The URL (with any authorization it carries) and subprotocols of a new connection, authorized now.
    func connectionRequest() async throws(RealtimeError) -> (url: String, subprotocols: [String])
    /// The frame that starts subscription `id` for `request` (a GraphQL payload or a channel), authorized now.
    func subscribeFrame(id: String, request: String) async throws(RealtimeError) -> String
    /// The frame that ends subscription `id`.
    func unsubscribeFrame(id: String) -> String
    /// What a received frame says.
    func parse(_ frame: String) -> RealtimeServerMessage
}

extension RealtimeDialect {
    /// `{"type":"connection_init"}`, the same in both protocols.
    var connectionInitFrame: String { #"{"type":"connection_init"}"# }
}

/// A server frame, as either protocol sends it.
public enum RealtimeServerMessage: Sendable, Equatable {
    /// `connection_ack`, with the keep-alive limit when given.
    case connectionAcknowledged(keepAliveTimeout: Duration?)
    /// `ka`.
    case keepAlive
    /// `start_ack` / `subscribe_success`.
    case subscribed(id: String)
    /// `data` for subscription `id`.
    case data(id: String, payload: JSONValue)
    /// `error` / `subscribe_error` for subscription `id`.
    case subscriptionFailed(id: String, errors: [RealtimeServerError])
    /// `complete` / `unsubscribe_success`.
    case completed(id: String)
    /// `connection_error`.
    case connectionFailed(errors: [RealtimeServerError])
    /// `error` without a subscription id.
    case failed(errors: [RealtimeServerError])
    /// A message type this client does not know (ignored).
    case unknown(type: String)
    /// Not a JSON object with a `type` (ignored).
    case malformed
}

/// Reading the members of server frames.
enum RealtimeFrame {
    /// The frame as a JSON object, or nil.
    static func object(_ frame: String) -> [String: JSONValue]? {
        guard let value = try? JSONValue.decode(frame), case .object(let members) = value else { return nil }
        return members
    }

    /// An `errors` list, leniently (a server may send anything there).
    static func errors(_ value: JSONValue?) -> [RealtimeServerError] {
        guard case .array(let items) = value else { return [] }
        return items.map { item in
            guard case .object(let members) = item else { return RealtimeServerError(message: item.description) }
            return RealtimeServerError(
                errorType: members["errorType"]?.stringValue, message: members["message"]?.stringValue,
                errorCode: members["errorCode"]?.integerValue.map { Int($0) })
        }
    }

    /// The `errors` member of a `payload` object, where the GraphQL protocol puts them.
    static func errors(inPayload payload: JSONValue?) -> [RealtimeServerError] {
        guard case .object(let members)? = payload else { return [] }
        return errors(members["errors"])
    }

    /// Milliseconds as a duration, when the value is a positive number.
    static func milliseconds(_ value: JSONValue?) -> Duration? {
        guard let number = value?.integerValue, number > 0 else { return nil }
        return .milliseconds(number)
    }
}

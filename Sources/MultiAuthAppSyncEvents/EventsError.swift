public import MultiAuthAuthorization
public import MultiAuthCore
public import MultiAuthRealtime

/// Why an AppSync Events call failed. Messages name the endpoint and channel, never a key,
/// token or signature.
public enum EventsError: Error, Sendable, CustomStringConvertible {
    /// A channel that is not `/namespace/segment…` (1 to 5 segments of letters, digits and `-`;
    /// a subscription may end in `/*`).
    case invalidChannel(String, reason: String)
    /// Publish takes 1 to 5 events.
    case eventCount(Int)
    /// The publish could not be authorized or sent.
    case request(endpoint: String, RequestError)
    /// The server refused the publish (its status and message).
    case refused(endpoint: String, status: Int, message: String)
    /// The client was built without a WebSocket connector, so it cannot subscribe.
    case noWebSocket(endpoint: String)
    /// The real-time connection or subscription failed.
    case realtime(RealtimeError)

    public var description: String {
        switch self {
        case .invalidChannel(let channel, let reason): "channel '\(Redaction.quoted(channel, limit: 120))': \(reason)"
        case .eventCount(let count): "publish takes 1 to 5 events, not \(count)"
        case .request(let endpoint, let error): "\(endpoint): \(error)"
        case .refused(let endpoint, let status, let message): "\(endpoint) refused the publish (HTTP \(status)): \(Redaction.quoted(message))"
        case .noWebSocket(let endpoint): "cannot subscribe to \(endpoint): the client was given no WebSocket connector (NIOWebSocketConnector)"
        case .realtime(let error): error.description
        }
    }
}

extension EventsError: CodedError {
    /// `Events.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .invalidChannel: "Events.invalidChannel"
        case .eventCount: "Events.eventCount"
        case .request: "Events.request"
        case .refused: "Events.refused"
        case .noWebSocket: "Events.noWebSocket"
        case .realtime: "Events.realtime"
        }
    }
}

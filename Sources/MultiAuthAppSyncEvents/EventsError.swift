public import MultiAuthAuthorization
public import MultiAuthCore
public import MultiAuthRealtime

/// Why an AppSync Events call failed. Messages name the endpoint and channel, never a key,
/// token or signature.
public struct EventsError: CodedError, Sendable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension EventsError {
    /// A channel that is not `/namespace/segment…` (1 to 5 segments of letters, digits and `-`;
    /// a subscription may end in `/*`).
    public static func invalidChannel(_ value0: String, reason: String) -> EventsError {
        EventsError(.invalidChannel(value0, reason: reason))
    }
    /// Publish takes 1 to 5 events.
    public static func eventCount(_ value: Int) -> EventsError { EventsError(.eventCount(value)) }
    /// The publish could not be authorized or sent.
    public static func request(endpoint: String, _ value1: RequestError) -> EventsError {
        EventsError(.request(endpoint: endpoint, value1))
    }
    /// The server refused the publish (its status and message).
    public static func refused(endpoint: String, status: Int, message: String) -> EventsError {
        EventsError(.refused(endpoint: endpoint, status: status, message: message))
    }
    /// The client was built without a WebSocket connector, so it cannot subscribe.
    public static func noWebSocket(endpoint: String) -> EventsError { EventsError(.noWebSocket(endpoint: endpoint)) }
    /// The real-time connection or subscription failed.
    public static func realtime(_ value: RealtimeError) -> EventsError { EventsError(.realtime(value)) }
}

extension EventsError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``EventsError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case invalidChannel(String, reason: String)
        case eventCount(Int)
        case request(endpoint: String, RequestError)
        case refused(endpoint: String, status: Int, message: String)
        case noWebSocket(endpoint: String)
        case realtime(RealtimeError)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .request(_, let error): error
            case .realtime(let error): error
            default: nil
            }
        }

        package var description: String {
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
}

extension EventsError.Kind {
    /// `Events.` and the case's name, fixed once published.
    package var code: ErrorCode {
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

import HTTPTypes
public import Logging
public import MultiAuthAuthorization
import MultiAuthAWSClient
public import MultiAuthCore
public import MultiAuthHTTP
public import MultiAuthRealtime

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a publish did, event by event (AppSync's `successful` and `failed` lists).
public struct PublishResult: Sendable, Equatable, Decodable {
    /// One event's outcome.
    public struct Outcome: Sendable, Equatable, Decodable {
        /// The server's id for the event.
        public let identifier: String
        /// The event's position in the publish.
        public let index: Int
        /// Why it failed, for failed events.
        public let code: String?, message: String?
    }

    /// The events accepted.
    public let successful: [Outcome]
    /// The events refused.
    public let failed: [Outcome]
}

/// A client for one AppSync Event API in one auth mode: publish over HTTP (`POST …/event`),
/// subscribe to channels over the Events WebSocket (``AppSyncEventsDialect``), one socket
/// shared by all subscriptions, with the keep-alive and reconnect rules of
/// ``RealtimeConnection``.
///
/// ```swift
/// let events = EventsClient(
///     endpoint: "https://example.appsync-api.us-east-1.amazonaws.com/event", mode: .apiKey,
///     authorizer: APIKeyAuthorizer(key: .fixed(apiKey)), transport: CurlHTTPClient(), webSocket: NIOWebSocketConnector())
/// _ = try await events.publish(channel: "/default/news", events: [.object(["title": .string("hello")])])
/// for try await event in try await events.subscribe(channel: "/default/*") { print(event) }
/// ```
public struct EventsClient: Sendable {
    /// The HTTP endpoint (`https://…/event`).
    public let endpoint: String
    /// The auth mode.
    public let mode: AuthMode
    let http: AuthorizedHTTPClient
    let connection: RealtimeConnection?

    /// A client for the Event API at `endpoint`, authorized in `mode` by `authorizer`.
    /// - Parameter webSocket: opens the subscription socket (`NIOWebSocketConnector`); without one, ``subscribe(channel:)`` throws.
    public init(
        endpoint: String, mode: AuthMode, authorizer: any RequestAuthorizer, transport: any HTTPSender,
        webSocket: (any WebSocketConnector)? = nil, settings: RealtimeConnection.Settings = RealtimeConnection.Settings(),
        logger: Logger = .disabled
    ) {
        self.endpoint = endpoint
        self.mode = mode
        // A publish is sent once: a retried one could be delivered twice.
        http = AuthorizedHTTPClient(transport: transport, authorizer: authorizer, retry: .once, logger: logger)
        let dialect = AppSyncEventsDialect(httpEndpoint: endpoint, mode: mode, authorizer: authorizer)
        connection = webSocket.map { RealtimeConnection(dialect: dialect, connector: $0, settings: settings, logger: logger) }
    }

    /// Publishes 1 to 5 events (each sent as its JSON text) to `channel`.
    public func publish(channel: String, events: [JSONValue]) async throws(EventsError) -> PublishResult {
        try EventsChannel.checkPublish(channel)
        guard (1...5).contains(events.count) else { throw .eventCount(events.count) }
        let body = JSONValue.object(["channel": .string(channel), "events": .array(events.map { .string($0.description) })]).description
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: .post, wireURL: endpoint, headerFields: [.contentType: "application/json", .accept: "application/json"])
        } catch { throw .request(endpoint: endpoint, .transport(.invalidURL(endpoint))) }
        let response: ReceivedResponse
        do { response = try await http.send(request, body: .bytes(Array(body.utf8))).response } catch { throw .request(endpoint: endpoint, error) }
        guard response.status < 300, let result = try? JSONDecoding.decode(PublishResult.self, from: response.body, what: "the answer") else {
            throw .refused(endpoint: endpoint, status: response.status, message: Self.message(in: response.body))
        }
        return result
    }

    /// Subscribes to `channel` (a final `/*` matches every channel below it) and yields each
    /// event (its JSON, or a string when the event is not JSON). Stopping the iteration sends
    /// `unsubscribe`; the stream throws ``EventsError/realtime(_:)`` when the server refuses
    /// the subscription or the connection gives up.
    public func subscribe(channel: String) async throws(EventsError) -> AsyncThrowingStream<JSONValue, any Error> {
        guard let connection else { throw .noWebSocket(endpoint: endpoint) }
        try EventsChannel.checkSubscribe(channel)
        return await connection.subscribe(channel, transform: { $0 }, failure: { EventsError.realtime($0) }, onEnd: {})
    }

    /// The `errors[].message` (or `message`) of an error body, else a note of its size.
    private static func message(in body: [UInt8]) -> String {
        if case .object(let members)? = try? JSONValue.decode(String(decoding: body, as: UTF8.self)) {
            if case .array(let errors)? = members["errors"], case .object(let first)? = errors.first, let message = first["message"]?.stringValue {
                return message
            }
            if let message = members["message"]?.stringValue { return message }
        }
        return "\(body.count) bytes that are not an AppSync error"
    }
}

public import MultiAuthAuthorization
public import MultiAuthCore
import MultiAuthCrypto

/// AppSync Events' WebSocket protocol (subprotocols `aws-appsync-event-ws` and
/// `header-<base64url authorization>`): `subscribe` with a channel and its own authorization
/// (IAM signs `POST <endpoint>` with body `{"channel":…}`), `unsubscribe`; the server's
/// `subscribe_success`, `subscribe_error`, `data` (with `event`, a JSON string) and
/// `unsubscribe_success`.
public struct AppSyncEventsDialect: RealtimeDialect {
    /// The HTTP endpoint (`https://…/event`).
    public let httpEndpoint: String
    /// The auth mode.
    public let mode: AuthMode
    let authorizer: any RequestAuthorizer
    public let endpoint: String

    /// The dialect for the Event API at `httpEndpoint`, authorized in `mode` by `authorizer`.
    public init(httpEndpoint: String, mode: AuthMode, authorizer: any RequestAuthorizer) {
        self.httpEndpoint = httpEndpoint
        self.mode = mode
        self.authorizer = authorizer
        endpoint = RealtimeAuthorization.realtimeEndpoint(for: httpEndpoint, alwaysAppend: true)
    }

    public func connectionRequest() async throws(RealtimeError) -> (url: String, subprotocols: [String]) {
        let header = RealtimeAuthorization.json(try await authorization(body: "{}")).description
        return (endpoint, ["aws-appsync-event-ws", "header-" + Base64.encodeURL(Array(header.utf8))])
    }

    public func subscribeFrame(id: String, request channel: String) async throws(RealtimeError) -> String {
        let body = JSONValue.object(["channel": .string(channel)]).description
        let authorization = RealtimeAuthorization.json(try await authorization(body: body))
        return JSONValue.object([
            "type": .string("subscribe"), "id": .string(id), "channel": .string(channel), "authorization": authorization,
        ]).description
    }

    public func unsubscribeFrame(id: String) -> String {
        JSONValue.object(["type": .string("unsubscribe"), "id": .string(id)]).description
    }

    public func parse(_ frame: String) -> RealtimeServerMessage {
        guard let members = RealtimeFrame.object(frame), let type = members["type"]?.stringValue else { return .malformed }
        let id = members["id"]?.stringValue
        switch (type, id) {
        case ("connection_ack", _): return .connectionAcknowledged(keepAliveTimeout: RealtimeFrame.milliseconds(members["connectionTimeoutMs"]))
        case ("ka", _): return .keepAlive
        case ("subscribe_success", let id?): return .subscribed(id: id)
        case ("unsubscribe_success", let id?): return .completed(id: id)
        case ("data", let id?):
            guard let event = members["event"]?.stringValue else { return .data(id: id, payload: members["event"] ?? .null) }
            return .data(id: id, payload: (try? JSONValue.decode(event)) ?? .string(event))
        case ("subscribe_error", let id?), ("error", let id?): return .subscriptionFailed(id: id, errors: RealtimeFrame.errors(members["errors"]))
        case ("error", nil): return .failed(errors: RealtimeFrame.errors(members["errors"]))
        case ("connection_error", _):
            let errors = RealtimeFrame.errors(members["errors"])
            return .connectionFailed(errors: errors.isEmpty ? RealtimeFrame.errors(inPayload: members["payload"]) : errors)
        default: return .unknown(type: type)
        }
    }

    /// The authorization object for `POST <endpoint>` with `body`.
    func authorization(body: String) async throws(RealtimeError) -> [String: String] {
        do { return try await RealtimeAuthorization.headers(mode: mode, url: httpEndpoint, body: body, authorizer: authorizer) } catch {
            throw .authorization(error)
        }
    }
}

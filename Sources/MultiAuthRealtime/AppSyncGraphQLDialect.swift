public import MultiAuthAuthorization
public import MultiAuthCore
import MultiAuthCrypto

/// AppSync's GraphQL real-time protocol (subprotocol `graphql-ws`): the connection authorized
/// in the `header` query parameter (IAM signs `POST <api>/connect` with body `{}`), `start`
/// with `payload.data` and `extensions.authorization` (IAM signs `POST <api>` with that data),
/// `stop`; the server's `start_ack`, `data`, `error` and `complete`.
public struct AppSyncGraphQLDialect: RealtimeDialect {
    /// The GraphQL HTTP endpoint (`ApiUrl`).
    public let apiURL: String
    /// The auth mode of the connection and its subscriptions.
    public let mode: AuthMode
    let authorizer: any RequestAuthorizer
    public let endpoint: String

    /// The dialect for the API at `apiURL`, authorized in `mode` by `authorizer`.
    public init(apiURL: String, mode: AuthMode, authorizer: any RequestAuthorizer) {
        self.apiURL = apiURL
        self.mode = mode
        self.authorizer = authorizer
        endpoint = RealtimeAuthorization.realtimeEndpoint(for: apiURL)
    }

    /// The connection's authorization object.
    public func connectionAuthorization() async throws(RealtimeError) -> [String: String] {
        let url = mode == .awsIAM ? apiURL + (apiURL.hasSuffix("/") ? "connect" : "/connect") : apiURL
        do { return try await RealtimeAuthorization.headers(mode: mode, url: url, body: "{}", authorizer: authorizer) } catch {
            throw .authorization(error)
        }
    }

    public func connectionRequest() async throws(RealtimeError) -> (url: String, subprotocols: [String]) {
        let header = RealtimeAuthorization.json(try await connectionAuthorization()).description
        return (endpoint + "?header=" + Base64.encode(Array(header.utf8)) + "&payload=e30=", ["graphql-ws"])
    }

    public func subscribeFrame(id: String, request: String) async throws(RealtimeError) -> String {
        let authorization: [String: String]
        do { authorization = try await RealtimeAuthorization.headers(mode: mode, url: apiURL, body: request, authorizer: authorizer) } catch {
            throw .authorization(error)
        }
        let payload: JSONValue = .object(["data": .string(request), "extensions": .object(["authorization": RealtimeAuthorization.json(authorization)])])
        return JSONValue.object(["id": .string(id), "type": .string("start"), "payload": payload]).description
    }

    public func unsubscribeFrame(id: String) -> String {
        JSONValue.object(["id": .string(id), "type": .string("stop")]).description
    }

    public func parse(_ frame: String) -> RealtimeServerMessage {
        guard let members = RealtimeFrame.object(frame), let type = members["type"]?.stringValue else { return .malformed }
        let id = members["id"]?.stringValue
        let payload = members["payload"]
        switch (type, id) {
        case ("connection_ack", _):
            guard case .object(let ack)? = payload else { return .connectionAcknowledged(keepAliveTimeout: nil) }
            return .connectionAcknowledged(keepAliveTimeout: RealtimeFrame.milliseconds(ack["connectionTimeoutMs"]))
        case ("ka", _): return .keepAlive
        case ("start_ack", let id?): return .subscribed(id: id)
        case ("data", let id?): return .data(id: id, payload: payload ?? .null)
        case ("complete", let id?): return .completed(id: id)
        case ("error", let id?): return .subscriptionFailed(id: id, errors: RealtimeFrame.errors(inPayload: payload))
        case ("error", nil): return .failed(errors: RealtimeFrame.errors(inPayload: payload))
        case ("connection_error", _): return .connectionFailed(errors: RealtimeFrame.errors(inPayload: payload))
        default: return .unknown(type: type)
        }
    }
}

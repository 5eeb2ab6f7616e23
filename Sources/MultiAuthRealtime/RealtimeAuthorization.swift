import HTTPTypes
public import MultiAuthAuthorization
public import MultiAuthCore
public import MultiAuthSigV4

/// The `authorization` object AppSync's real-time protocols carry instead of headers: the
/// headers the mode's authorizer would add to `POST url` with `body`, under AppSync's names.
/// IAM signs the request with the `accept`, `content-encoding` and `content-type` AppSync
/// expects; an API key comes with `x-amz-date`; a token as `Authorization`.
public enum RealtimeAuthorization {
    /// The headers AppSync's IAM handshake signs besides host and date.
    static let iamHeaders: [(String, String)] = [
        ("accept", "application/json, text/javascript"), ("content-encoding", "amz-1.0"), ("content-type", "application/json; charset=UTF-8"),
    ]

    /// The authorization object for `POST url` with `body` in `mode`.
    public static func headers(
        mode: AuthMode, url: String, body: String, authorizer: any RequestAuthorizer, at date: SigningDate = .now()
    ) async throws(AuthorizationError) -> [String: String] {
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: .post, wireURL: url, headerFields: HTTPFields(checking: mode == .awsIAM ? iamHeaders : []))
        } catch { throw .signing(.malformedURL(url, reason: error.description)) }
        let authorized = try await authorizer.authorize(request, body: .bytes(Array(body.utf8)), at: date).request
        var json = ["host": authorized.authority ?? ""]
        for field in authorized.headerFields {
            let name = field.name.canonicalName
            switch (mode, name) {
            case (.apiKey, "x-api-key"), (.apiKey, "x-amz-date"): json[name] = field.value
            case (.awsIAM, "authorization"): json["Authorization"] = field.value
            case (.awsIAM, "x-amz-security-token"): json["x-amz-security-token"] = field.value
            case (.awsIAM, _) where name == "x-amz-date" || iamHeaders.contains(where: { $0.0 == name }): json[name] = field.value
            case (.amazonCognitoUserPools, "authorization"), (.openIDConnect, "authorization"), (.awsLambda, "authorization"):
                json["Authorization"] = field.value
            default: break
            }
        }
        if mode == .apiKey, json["x-amz-date"] == nil { json["x-amz-date"] = date.amzDate }
        return json
    }

    /// The object as compact JSON.
    static func json(_ headers: [String: String]) -> JSONValue { .object(headers.mapValues { .string($0) }) }

    /// The WebSocket URL for an HTTP endpoint: `https` → `wss`, `http` → `ws`; on AppSync's own
    /// hosts `appsync-api` → `appsync-realtime-api` with the path kept, elsewhere (custom
    /// domains, local servers) `/realtime` appended to the path. `alwaysAppend` appends it on
    /// AppSync hosts too (Events: `/event/realtime`).
    public static func realtimeEndpoint(for url: String, alwaysAppend: Bool = false) -> String {
        var endpoint = url
        if endpoint.hasPrefix("https://") { endpoint = "wss://" + endpoint.dropFirst(8) } else if endpoint.hasPrefix("http://") {
            endpoint = "ws://" + endpoint.dropFirst(7)
        }
        let appSyncHost = endpoint.contains(".appsync-api.")
        if appSyncHost { endpoint = endpoint.replacing(".appsync-api.", with: ".appsync-realtime-api.") }
        if appSyncHost && !alwaysAppend { return endpoint }
        return endpoint.hasSuffix("/") ? endpoint + "realtime" : endpoint + "/realtime"
    }
}

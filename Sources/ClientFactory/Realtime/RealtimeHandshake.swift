import Authorization
import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import SigV4

/// The AppSync realtime (websocket) connection request for one client: the `wss://` URL
/// with the base64 `header` JSON of its auth mode and `payload=e30=` (`{}`), and the
/// `extensions.authorization` object for each subscription. The websocket itself is out of
/// scope.
public enum RealtimeHandshake {
    /// The headers AppSync's IAM handshake signs besides host and date.
    static let iamHeaders: [(String, String)] = [
        ("accept", "application/json, text/javascript"), ("content-encoding", "amz-1.0"), ("content-type", "application/json; charset=UTF-8"),
    ]

    /// `wss://` URL: `appsync-api` → `appsync-realtime-api` for AppSync hosts, else (custom
    /// domains) `/realtime` appended to the path.
    public static func realtimeEndpoint(for apiURL: String) -> String {
        var url = apiURL
        if url.hasPrefix("https://") { url = "wss://" + url.dropFirst(8) } else if url.hasPrefix("http://") { url = "ws://" + url.dropFirst(7) }
        if url.contains(".appsync-api.") { return url.replacing(".appsync-api.", with: ".appsync-realtime-api.") }
        return url.hasSuffix("/") ? url + "realtime" : url + "/realtime"
    }

    /// The authorization JSON for the connection (`data` = `{}`, IAM signs `<api>/connect`)
    /// or for a subscription (`data` = its payload, IAM signs the API URL).
    public static func authorization(
        for client: AppSyncClient, data: String = "{}", connection: Bool = true, at date: SigningDate = .now()
    ) async throws(AuthorizationError) -> [String: String] {
        let entry = client.entry
        let url = connection && entry.authMode == .awsIAM ? entry.apiURL + (entry.apiURL.hasSuffix("/") ? "connect" : "/connect") : entry.apiURL
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: .post, wireURL: url, headerFields: HTTPFields(checking: entry.authMode == .awsIAM ? iamHeaders : []))
        } catch { throw .signing(.malformedURL(url, reason: error.description)) }
        let authorized = try await client.http.authorizer.authorize(request, body: .bytes(Array(data.utf8)), at: date).request
        var json = ["host": authorized.authority ?? ""]
        for field in authorized.headerFields {
            let name = field.name.canonicalName
            switch (entry.authMode, name) {
            case (.apiKey, "x-api-key"), (.apiKey, "x-amz-date"): json[name] = field.value
            case (.awsIAM, "authorization"): json["Authorization"] = field.value
            case (.awsIAM, "x-amz-security-token"): json["x-amz-security-token"] = field.value
            case (.awsIAM, _) where name == "x-amz-date" || iamHeaders.contains(where: { $0.0 == name }): json[name] = field.value
            case (.amazonCognitoUserPools, "authorization"), (.openIDConnect, "authorization"), (.awsLambda, "authorization"):
                json["Authorization"] = field.value
            default: break
            }
        }
        if entry.authMode == .apiKey, json["x-amz-date"] == nil { json["x-amz-date"] = date.amzDate }
        return json
    }

    /// The full connection URL: `wss://…/graphql?header=<base64 JSON>&payload=e30=`.
    public static func connectionURL(for client: AppSyncClient, at date: SigningDate = .now()) async throws(AuthorizationError) -> String {
        let header = try await authorization(for: client, at: date)
        let json = JSONValue.object(header.mapValues { .string($0) }).description
        return realtimeEndpoint(for: client.entry.apiURL) + "?header=" + Base64.encode(Array(json.utf8)) + "&payload=e30="
    }
}

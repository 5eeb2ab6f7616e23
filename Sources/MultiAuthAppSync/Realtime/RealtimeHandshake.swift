import MultiAuthAuthorization
import MultiAuthCore
public import MultiAuthRealtime
import MultiAuthSigV4

/// The AppSync real-time (WebSocket) connection request of one client: the `wss://` URL with
/// the base64 `header` JSON of its auth mode and `payload=e30=` (`{}`). Subscriptions
/// themselves go through ``AppSyncClient/subscribe(_:variables:)``.
public enum RealtimeHandshake {
    /// `wss://` URL: `appsync-api` → `appsync-realtime-api` for AppSync hosts, else (custom
    /// domains, local servers) `/realtime` appended to the path.
    public static func realtimeEndpoint(for apiURL: String) -> String {
        RealtimeAuthorization.realtimeEndpoint(for: apiURL)
    }

    /// The connection's authorization JSON (IAM signs `POST <api>/connect` with body `{}`).
    public static func authorization(for client: AppSyncClient) async throws(RealtimeError) -> [String: String] {
        try await client.graphQLDialect.connectionAuthorization()
    }

    /// The full connection URL: `wss://…/graphql?header=<base64 JSON>&payload=e30=`.
    public static func connectionURL(for client: AppSyncClient) async throws(RealtimeError) -> String {
        try await client.graphQLDialect.connectionRequest().url
    }
}

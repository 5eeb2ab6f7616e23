public import MultiAuthAuthorization
public import MultiAuthCore
import MultiAuthHTTP
public import MultiAuthRealtime

/// Why a GraphQL call failed. Messages name the client entry and the URL, never a key or token.
public enum AppSyncClientError: Error, Sendable, CustomStringConvertible {
    /// The request could not be authorized or sent.
    case request(entry: String, url: String, RequestError)
    /// The server answered something that is not a GraphQL JSON response (HTML, text...).
    case notJSON(entry: String, url: String, status: Int, contentType: String)
    /// `returnCacheDataDontFetch` and nothing is cached.
    case cacheMiss(entry: String)
    /// A cache database failed.
    case cache(CacheError)
    /// The variables are not a JSON object.
    case invalidVariables(String)
    /// A queued mutation's stored variables no longer decode; it stays queued, unsent.
    case undecodableQueuedVariables(entry: String, mutationId: Int64)
    /// The client was built without a WebSocket connector, so it cannot subscribe.
    case noWebSocket(entry: String)
    /// The document given to ``AppSyncClient/subscribe(_:variables:)`` is not a subscription.
    case notASubscription(entry: String)
    /// The real-time connection or subscription failed.
    case realtime(entry: String, RealtimeError)

    public var description: String {
        switch self {
        case .request(let entry, let url, let error): "client '\(entry)' (\(url)): \(error)"
        case .notJSON(let entry, let url, let status, let type):
            "client '\(entry)': \(url) answered HTTP \(status) with \(type.isEmpty ? "no content type" : type), not a GraphQL JSON response"
        case .cacheMiss(let entry): "client '\(entry)': nothing cached for this query (policy returnCacheDataDontFetch)"
        case .cache(let error): error.description
        case .invalidVariables(let problem): "variables: \(problem)"
        case .undecodableQueuedVariables(let entry, let id):
            "client '\(entry)': queued mutation \(id) has stored variables that are not JSON; it stays queued and the replay stopped"
        case .noWebSocket(let entry): "client '\(entry)' cannot subscribe: its factory was given no WebSocket connector (NIOWebSocketConnector)"
        case .notASubscription(let entry): "client '\(entry)': the real-time endpoint only takes subscription operations"
        case .realtime(let entry, let error): "client '\(entry)': \(error)"
        }
    }

    /// True when the network, not the server, failed (the mutation can wait offline).
    var isNetworkFailure: Bool {
        guard case .request(_, _, .transport(let error)) = self else { return false }
        switch error {
        case .connectionFailed, .timedOut: return true
        default: return error.isTransient
        }
    }
}

extension AppSyncClientError: CodedError {
    /// `AppSyncClient.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .request: "AppSyncClient.request"
        case .notJSON: "AppSyncClient.notJSON"
        case .cacheMiss: "AppSyncClient.cacheMiss"
        case .cache: "AppSyncClient.cache"
        case .invalidVariables: "AppSyncClient.invalidVariables"
        case .undecodableQueuedVariables: "AppSyncClient.undecodableQueuedVariables"
        case .noWebSocket: "AppSyncClient.noWebSocket"
        case .notASubscription: "AppSyncClient.notASubscription"
        case .realtime: "AppSyncClient.realtime"
        }
    }
}

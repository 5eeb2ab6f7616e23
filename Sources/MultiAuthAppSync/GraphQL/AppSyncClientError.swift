public import MultiAuthAuthorization
public import MultiAuthCore
import MultiAuthHTTP
public import MultiAuthRealtime

/// Why a GraphQL call failed. Messages name the client entry and the URL, never a key or token.
public struct AppSyncClientError: CodedError, Sendable {
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

extension AppSyncClientError {
    /// The request could not be authorized or sent.
    public static func request(entry: String, url: String, _ value2: RequestError) -> AppSyncClientError {
        AppSyncClientError(.request(entry: entry, url: url, value2))
    }
    /// The server answered something that is not a GraphQL JSON response (HTML, text...).
    public static func notJSON(entry: String, url: String, status: Int, contentType: String) -> AppSyncClientError {
        AppSyncClientError(.notJSON(entry: entry, url: url, status: status, contentType: contentType))
    }
    /// `returnCacheDataDontFetch` and nothing is cached.
    public static func cacheMiss(entry: String) -> AppSyncClientError { AppSyncClientError(.cacheMiss(entry: entry)) }
    /// A cache database failed.
    public static func cache(_ value: CacheError) -> AppSyncClientError { AppSyncClientError(.cache(value)) }
    /// The variables are not a JSON object.
    public static func invalidVariables(_ value: String) -> AppSyncClientError {
        AppSyncClientError(.invalidVariables(value))
    }
    /// A queued mutation's stored variables no longer decode; it stays queued, unsent.
    public static func undecodableQueuedVariables(entry: String, mutationId: Int64) -> AppSyncClientError {
        AppSyncClientError(.undecodableQueuedVariables(entry: entry, mutationId: mutationId))
    }
    /// The client was built without a WebSocket connector, so it cannot subscribe.
    public static func noWebSocket(entry: String) -> AppSyncClientError {
        AppSyncClientError(.noWebSocket(entry: entry))
    }
    /// The document given to ``AppSyncClient/subscribe(_:variables:)`` is not a subscription.
    public static func notASubscription(entry: String) -> AppSyncClientError {
        AppSyncClientError(.notASubscription(entry: entry))
    }
    /// The real-time connection or subscription failed.
    public static func realtime(entry: String, _ value1: RealtimeError) -> AppSyncClientError {
        AppSyncClientError(.realtime(entry: entry, value1))
    }
}

extension AppSyncClientError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``AppSyncClientError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case request(entry: String, url: String, RequestError)
        case notJSON(entry: String, url: String, status: Int, contentType: String)
        case cacheMiss(entry: String)
        case cache(CacheError)
        case invalidVariables(String)
        case undecodableQueuedVariables(entry: String, mutationId: Int64)
        case noWebSocket(entry: String)
        case notASubscription(entry: String)
        case realtime(entry: String, RealtimeError)

        /// The error this case keeps as its cause.
        package var underlying: (any Error & Sendable)? {
            switch self {
            case .request(_, _, let error): error
            case .cache(let error): error
            case .realtime(_, let error): error
            default: nil
            }
        }

        package var description: String {
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

        var isNetworkFailure: Bool {
            guard case .request(_, _, let request) = self, case .transport(let error) = request.kind else { return false }
            return error.isTransient
        }
    }
}

extension AppSyncClientError.Kind {
    /// `AppSyncClient.` and the case's name, fixed once published.
    package var code: ErrorCode {
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

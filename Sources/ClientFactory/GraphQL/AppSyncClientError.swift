import Authorization

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

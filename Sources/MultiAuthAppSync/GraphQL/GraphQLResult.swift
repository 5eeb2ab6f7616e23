public import MultiAuthCore

/// One GraphQL error as AppSync reports it.
public struct GraphQLError: Sendable, Equatable, Decodable {
    /// A source location in the operation text.
    public struct Location: Sendable, Equatable, Decodable {
        /// 1-based line and column.
        public let line: Int, column: Int
    }

    /// The message (`Not Authorized to access url on type Post`).
    public let message: String
    /// AppSync's error type (`Unauthorized`, ...), when given.
    public let errorType: String?
    /// Where in the result the error applies (field names and list indexes).
    public let path: [JSONValue]?
    /// Where in the operation text.
    public let locations: [Location]?
}

/// A GraphQL response: the data (which may be partial) and every error, kept together.
public struct GraphQLResult: Sendable, Equatable, Decodable {
    /// `data`, possibly with `null` where a field failed.
    public let data: JSONValue?
    /// `errors`, empty when there were none.
    public let errors: [GraphQLError]

    enum CodingKeys: String, CodingKey { case data, errors }

    /// A result from its parts.
    public init(data: JSONValue?, errors: [GraphQLError]) {
        self.data = data
        self.errors = errors
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decodeIfPresent(JSONValue.self, forKey: .data)
        errors = try container.decodeIfPresent([GraphQLError].self, forKey: .errors) ?? []
    }

    /// The value at a path of object keys, e.g. `["getPost", "url"]`.
    public func value(at path: [String]) -> JSONValue? {
        var current = data
        for key in path {
            guard case .object(let members)? = current else { return nil }
            current = members[key]
        }
        return current
    }
}

/// Where a result came from.
public enum ResultSource: String, Sendable {
    /// The client's `_queries.db`.
    case cache
    /// The server, just now.
    case server
}

/// A result with its source; for ``CachePolicy/returnCacheDataAndFetch`` also the server's
/// fresh answer that replaced the cached one.
public struct GraphQLResponse: Sendable {
    /// The result handed back first.
    public let result: GraphQLResult
    /// Where it came from.
    public let source: ResultSource
    /// The server's answer fetched after a cache hit, with `returnCacheDataAndFetch`.
    public let refreshed: GraphQLResult?
    /// The raw JSON of ``result``, as stored or received.
    public let json: [UInt8]
}

/// How a query uses the cache (Apollo's and the AppSync SDK's policies).
public enum CachePolicy: String, Sendable, CaseIterable {
    /// A cached answer if there is one, else the server's (which is cached).
    case returnCacheDataElseFetch
    /// Always the server; the answer is cached.
    case fetchIgnoringCacheData
    /// Only the cache; a miss is an error.
    case returnCacheDataDontFetch
    /// The cached answer, and then the server's, which replaces it in the cache.
    case returnCacheDataAndFetch
}

/// The outcome of a mutation.
public enum MutationOutcome: Sendable {
    /// The server answered.
    case completed(GraphQLResult)
    /// The network failed, so the mutation waits in `_offlineMutations.db` under this id.
    case queued(id: Int64)
}

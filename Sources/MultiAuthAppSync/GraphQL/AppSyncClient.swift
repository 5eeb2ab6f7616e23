import HTTPTypes
import Logging
import MultiAuthAuthorization
import MultiAuthAWSClient
public import MultiAuthCore
import MultiAuthHTTP
import MultiAuthRealtime
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A GraphQL client for one `AppSync` entry: one auth mode, one set of databases.
///
/// Queries follow a ``CachePolicy`` over `<prefix>_queries.db` (with recent answers also held
/// in memory; clear through ``clearCaches(_:)`` so both tiers empty); mutations that fail for
/// network reasons wait in `<prefix>_offlineMutations.db` and are replayed in order, before
/// any new mutation is sent (a mutation never overtakes older queued ones), or on demand by
/// ``replayOfflineMutations()``. Mutations of one client run one at a time, and a lock file
/// beside the queue keeps other processes' replays and mutations out meanwhile.
/// Subscriptions share one WebSocket per client (``subscribe(_:variables:)``), recorded in
/// `<prefix>_subscriptionMetadataCache.db` while they live.
public final class AppSyncClient: Sendable {
    /// The configuration entry.
    public let entry: AppSyncEntry
    /// The client's database files.
    public let databases: ClientDatabases
    let http: AuthorizedHTTPClient
    /// Mutations are sent once: a retried mutation could be applied twice.
    let mutationHTTP: AuthorizedHTTPClient
    let registration: CacheRegistry.Registration?
    private let cache: QueryCache
    private let queue: OfflineMutationQueue
    private let lane = MutationLane()
    let logger: Logger
    /// The real-time protocol of this client's API, mode and authorizer.
    let graphQLDialect: AppSyncGraphQLDialect
    /// The client's one real-time connection (nil when the factory was given no WebSocket connector).
    let realtime: RealtimeConnection?
    let subscriptionMetadata: SubscriptionMetadata

    init(
        entry: AppSyncEntry, databases: ClientDatabases, transport: any HTTPSender, authorizer: any RequestAuthorizer,
        registration: CacheRegistry.Registration?, webSocket: (any WebSocketConnector)?, realtimeSettings: RealtimeConnection.Settings,
        logger: Logger
    ) {
        self.entry = entry
        self.databases = databases
        self.logger = logger
        http = AuthorizedHTTPClient(transport: transport, authorizer: authorizer, logger: logger)
        mutationHTTP = AuthorizedHTTPClient(transport: transport, authorizer: authorizer, retry: .once, logger: logger)
        self.registration = registration
        cache = QueryCache(database: databases.queries)
        queue = OfflineMutationQueue(database: databases.offlineMutations)
        subscriptionMetadata = SubscriptionMetadata(database: databases.subscriptionMetadata, logger: logger)
        let dialect = AppSyncGraphQLDialect(apiURL: entry.apiURL, mode: entry.authMode, authorizer: authorizer)
        graphQLDialect = dialect
        realtime = webSocket.map { RealtimeConnection(dialect: dialect, connector: $0, settings: realtimeSettings, logger: logger) }
    }

    deinit { registration?.release() }

    /// Runs a query under `cachePolicy`.
    public func query(
        _ operation: String, variables: JSONValue? = nil, cachePolicy: CachePolicy = .returnCacheDataElseFetch
    ) async throws(AppSyncClientError) -> GraphQLResponse {
        let cached = cachePolicy == .fetchIgnoringCacheData ? nil : try await cachedResponse(operation, variables)
        if cachePolicy != .fetchIgnoringCacheData {
            logger.debug(cached == nil ? "query cache miss" : "query cache hit", metadata: ["client": "\(entry.name)", "policy": "\(cachePolicy)"])
        }
        if let cached {
            let result: GraphQLResult
            if let decoded = cached.result {
                result = decoded
            } else {
                result = try decode(cached.json, status: 200, contentType: "application/json")
                cache.memory.store(QueryCache.Answer(key: cached.key, json: cached.json, result: result))
            }
            var refreshed: GraphQLResult?
            if cachePolicy == .returnCacheDataAndFetch { refreshed = try await fetchAndStore(operation, variables).result }
            return GraphQLResponse(result: result, source: .cache, refreshed: refreshed, json: cached.json)
        }
        if cachePolicy == .returnCacheDataDontFetch { throw .cacheMiss(entry: entry.name) }
        let fetched = try await fetchAndStore(operation, variables)
        return GraphQLResponse(result: fetched.result, source: .server, refreshed: nil, json: fetched.json)
    }

    /// Runs a mutation, after replaying any queued ones in order. When the network fails and
    /// `queueWhenOffline` is true, the mutation is queued behind them; pass false for calls
    /// that must fail instead (a sign-up, a payment). A queued mutation the server refuses
    /// for another reason stops the replay, and the new mutation is not sent: it would
    /// overtake it (clear the queue with ``clearCaches(_:)`` to give up on it).
    public func mutate(_ operation: String, variables: JSONValue? = nil, queueWhenOffline: Bool = true) async throws(AppSyncClientError) -> MutationOutcome {
        try await lane.run { () async throws(AppSyncClientError) -> MutationOutcome in
            let queueLock = try await lockQueue()
            defer { queueLock.release() }
            do throws(AppSyncClientError) {
                _ = try await replayQueued()
                return .completed(try await send(operation, variables, through: mutationHTTP).result)
            } catch where queueWhenOffline && error.kind.isNetworkFailure {
                logger.debug("mutation queued offline", metadata: ["client": "\(entry.name)", "reason": "\(error)"])
                do { return .queued(id: try await queue.enqueue(operation: operation, variables: variables, at: Self.now())) } catch {
                    throw .cache(.database(entry: entry.name, file: databases.offlineMutationsPath, reason: "\(error)"))
                }
            }
        }
    }

    /// Sends the queued mutations in the order they were made; stops at the first network
    /// failure (the rest stay queued). Returns how many were sent.
    @discardableResult
    public func replayOfflineMutations() async throws(AppSyncClientError) -> Int {
        try await lane.run { () async throws(AppSyncClientError) -> Int in
            let queueLock = try await lockQueue()
            defer { queueLock.release() }
            return try await replayQueued()
        }
    }

    /// The queue's lock across processes (`<prefix>_offlineMutations.db.lock`), so two
    /// processes never replay the same queued mutation, nor send a new one past it.
    private func lockQueue() async throws(AppSyncClientError) -> HeldFileLock {
        do { return try await FileLock.acquire(path: databases.offlineMutationsPath + ".lock", timeout: .seconds(30)) } catch {
            let reason = switch error.kind {
            case .timedOut(_, let waited): "another process kept the offline queue locked for \(Int(waited.rounded())) s"
            case .failed(_, let reason): "cannot lock the offline queue: \(reason)"
            }
            throw .cache(.database(entry: entry.name, file: databases.offlineMutationsPath, reason: reason))
        }
    }

    private func replayQueued() async throws(AppSyncClientError) -> Int {
        var sent = 0
        while true {
            let batch: [OfflineMutationQueue.Pending]
            do { batch = try await queue.pending() } catch { throw databaseError(databases.offlineMutationsPath, error) }
            guard !batch.isEmpty else { return sent }
            for mutation in batch {
                let variables = try storedVariables(of: mutation)
                _ = try await send(mutation.operation, variables, through: mutationHTTP)
                do { try await queue.remove(mutation.id) } catch { throw databaseError(databases.offlineMutationsPath, error) }
                sent += 1
                logger.debug("queued mutation replayed", metadata: ["client": "\(entry.name)", "id": "\(mutation.id)"])
            }
        }
    }

    /// The stored variables of a queued mutation; a stored text that no longer decodes stops
    /// the replay with the mutation still queued (sending it without variables would be wrong).
    private func storedVariables(of mutation: OfflineMutationQueue.Pending) throws(AppSyncClientError) -> JSONValue? {
        guard !mutation.variables.isEmpty, mutation.variables != "null" else { return nil }
        do { return try JSONDecoding.decode(JSONValue.self, from: mutation.variables, what: "the queued variables") } catch {
            throw .undecodableQueuedVariables(entry: entry.name, mutationId: mutation.id)
        }
    }

    /// How many mutations wait offline.
    public func pendingMutationCount() async throws(AppSyncClientError) -> Int {
        do { return try await queue.count() } catch { throw databaseError(databases.offlineMutationsPath, error) }
    }

    /// Empties the chosen caches; returns one error per cache that could not be cleared.
    public func clearCaches(_ options: ClientDatabases.ClearOptions = .all) async -> [CacheError] {
        if options.contains(.queries) { cache.memory.removeAll() }
        return await databases.clear(options, entry: entry.name)
    }

    // MARK: internals

    private func cachedResponse(_ operation: String, _ variables: JSONValue?) async throws(AppSyncClientError) -> QueryCache.Answer? {
        do { return try await cache.response(operation: operation, variables: variables) } catch {
            throw databaseError(databases.queriesPath, error)
        }
    }

    private func fetchAndStore(_ operation: String, _ variables: JSONValue?) async throws(AppSyncClientError) -> (result: GraphQLResult, json: [UInt8]) {
        let fetched = try await send(operation, variables, through: http)
        do { try await cache.store(fetched.json, result: fetched.result, operation: operation, variables: variables, at: Self.now()) } catch {
            throw databaseError(databases.queriesPath, error)
        }
        return fetched
    }

    func send(
        _ operation: String, _ variables: JSONValue?, through http: AuthorizedHTTPClient
    ) async throws(AppSyncClientError) -> (result: GraphQLResult, json: [UInt8]) {
        var body: [String: JSONValue] = ["query": .string(operation)]
        if let variables {
            guard case .object = variables else { throw .invalidVariables("must be a JSON object") }
            body["variables"] = variables
        }
        let bytes = Array(JSONValue.object(body).description.utf8)
        let request: HTTPRequest
        do {
            request = try HTTPRequest(
                method: .post, wireURL: entry.apiURL,
                headerFields: [.contentType: "application/json", .accept: "application/json"])
        } catch {
            throw .request(entry: entry.name, url: entry.apiURL, .transport(.invalidURL(entry.apiURL)))
        }
        let outcome: (response: ReceivedResponse, sent: AuthorizedRequest)
        do { outcome = try await http.send(request, body: .bytes(bytes)) } catch {
            throw .request(entry: entry.name, url: entry.apiURL, error)
        }
        let response = outcome.response
        return (try decode(response.body, status: response.status, contentType: response.header("content-type") ?? ""), response.body)
    }

    private func decode(_ body: [UInt8], status: Int, contentType: String) throws(AppSyncClientError) -> GraphQLResult {
        guard let result = try? JSONDecoding.decode(GraphQLResult.self, from: body, what: "the answer"), result.data != nil || !result.errors.isEmpty else {
            throw .notJSON(entry: entry.name, url: entry.apiURL, status: status, contentType: contentType)
        }
        return result
    }

    private func databaseError(_ file: String, _ error: any Error) -> AppSyncClientError {
        .cache(.database(entry: entry.name, file: file, reason: "\(error)"))
    }

    static func now() -> Int64 { Int64(TimeSource.system.now()) }
}

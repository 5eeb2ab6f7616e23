import Logging
public import MultiAuthCore
import MultiAuthRealtime

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AppSyncClient {
    /// Subscribes over the client's WebSocket (opened by the first subscription, shared by
    /// all, closed after the last) and yields each `data` message as a ``GraphQLResult``
    /// (partial data and errors together, as for queries). Stopping the iteration (or
    /// cancelling its task) sends `stop`. Drops and silent connections are survived by
    /// reconnecting and subscribing again with fresh authorization; the stream throws
    /// ``AppSyncClientError/realtime(entry:_:)`` when the server refuses the subscription or
    /// the connection gives up. While it lives, the subscription is recorded in
    /// `<prefix>_subscriptionMetadataCache.db` (see ``storedSubscriptions()``).
    ///
    /// - Throws: ``AppSyncClientError/noWebSocket(entry:)`` without a connector,
    ///   ``AppSyncClientError/notASubscription(entry:)`` for a query or mutation,
    ///   ``AppSyncClientError/invalidVariables(_:)`` for variables that are not an object.
    public func subscribe(_ document: String, variables: JSONValue? = nil) async throws(AppSyncClientError) -> AsyncThrowingStream<GraphQLResult, any Error> {
        try await subscribe(document, variables: variables, id: UUID().uuidString.lowercased())
    }

    /// Subscribes again to a subscription recorded by an earlier process (its row is reused).
    public func resume(_ stored: StoredSubscription) async throws(AppSyncClientError) -> AsyncThrowingStream<GraphQLResult, any Error> {
        let variables = try stored.variables.map { text throws(AppSyncClientError) -> JSONValue in
            guard let value = try? JSONValue.decode(text) else { throw .invalidVariables("stored subscription \(stored.id): not JSON") }
            return value
        }
        return try await subscribe(stored.document, variables: variables, id: stored.id)
    }

    /// The subscriptions recorded in the metadata database: live ones, and those a process
    /// left behind when it ended without stopping them.
    public func storedSubscriptions() async throws(AppSyncClientError) -> [StoredSubscription] {
        do { return try await subscriptionMetadata.all() } catch {
            throw .cache(.database(entry: entry.name, file: databases.subscriptionMetadataPath, reason: "\(error)"))
        }
    }

    private func subscribe(_ document: String, variables: JSONValue?, id: String) async throws(AppSyncClientError) -> AsyncThrowingStream<GraphQLResult, any Error> {
        guard let realtime else { throw .noWebSocket(entry: entry.name) }
        guard OperationKind.of(document) == .subscription else { throw .notASubscription(entry: entry.name) }
        var payload: [String: JSONValue] = ["query": .string(document)]
        if let variables {
            guard case .object = variables else { throw .invalidVariables("must be a JSON object") }
            payload["variables"] = variables
        }
        let (metadata, name, logger) = (subscriptionMetadata, entry.name, logger)
        do { try await metadata.record(id: id, document: document, variables: variables?.description, at: Self.now()) } catch {
            logger.warning("subscription metadata not written", metadata: ["subscription": "\(id)", "reason": "\(error)"])
        }
        return await realtime.subscribe(
            JSONValue.object(payload).description,
            transform: { message in
                metadata.touched(id: id, at: Self.now())
                return GraphQLResult(message)
            },
            failure: { AppSyncClientError.realtime(entry: name, $0) },
            onEnd: {
                // The row goes when the subscription ends, however it ends; a killed process leaves it.
                Task {
                    do { try await metadata.remove(id: id) } catch {
                        logger.warning("subscription metadata not removed", metadata: ["subscription": "\(id)", "reason": "\(error)"])
                    }
                }
            })
    }
}

extension GraphQLResult {
    /// A `data` message's payload: `data` and `errors` as in a query's answer.
    init(_ payload: JSONValue) {
        guard case .object(let members) = payload else {
            self.init(data: nil, errors: [])
            return
        }
        let errors: [GraphQLError]
        if let list = members["errors"], let decoded = try? JSONDecoding.decode([GraphQLError].self, from: list.description, what: "the errors") {
            errors = decoded
        } else {
            errors = []
        }
        self.init(data: members["data"], errors: errors)
    }
}

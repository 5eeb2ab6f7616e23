public import Logging
public import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One WebSocket shared by any number of subscriptions, for either AppSync real-time protocol
/// (its ``RealtimeDialect``): opened by the first subscription, closed when the last one ends.
///
/// After `connection_ack` it expects a frame (`ka` or data) at least every
/// `connectionTimeoutMs`; a connection that stays silent longer is dead and replaced. After a
/// drop it connects again after `Backoff`'s waits (from 100 ms, jittered) and sends every
/// live subscription again with fresh authorization (a new signature, a refreshed token). A
/// subscription the server refuses ends with ``RealtimeError/subscriptionRefused(endpoint:errors:)``
/// and is not retried; a refused connection (`connection_error` with an authorization error)
/// ends them all.
public actor RealtimeConnection {
    /// Waits and limits.
    public struct Settings: Sendable {
        /// The longest wait for `connection_ack`.
        public var acknowledgementTimeout: Duration
        /// The keep-alive limit when `connection_ack` gives none.
        public var keepAliveTimeout: Duration
        /// The waits between connections.
        public var backoff: Backoff
        /// Messages kept for a subscriber that does not keep up. One more, and the subscription
        /// ends with ``RealtimeError/subscriberBehind(endpoint:limit:)`` after the messages
        /// kept: a message is never dropped unnoticed.
        public var bufferLimit: Int

        /// The defaults: 15 s for the ack, 5 min keep-alive, waits from 100 ms to 5 s, giving up after 10 failed connections in a row, 4096 messages.
        public init(
            acknowledgementTimeout: Duration = .seconds(15), keepAliveTimeout: Duration = .seconds(300),
            backoff: Backoff = Backoff(base: .milliseconds(100), cap: .seconds(5), maxAttempts: 10), bufferLimit: Int = 4096
        ) {
            self.acknowledgementTimeout = acknowledgementTimeout
            self.keepAliveTimeout = keepAliveTimeout
            self.backoff = backoff
            self.bufferLimit = bufferLimit
        }
    }

    private struct Subscription {
        let request: String
        /// Hands one payload to the subscriber; false when its buffer was full and the oldest message went.
        let deliver: @Sendable (JSONValue) -> Bool
        let finish: @Sendable (RealtimeError?) -> Void
        var started = false
    }

    /// The protocol spoken.
    public nonisolated let dialect: any RealtimeDialect
    private let connector: any WebSocketConnector
    /// The waits and limits it was made with.
    public nonisolated let settings: Settings
    private let clock: TimeSource
    private let random: @Sendable () -> Double
    private let logger: Logger
    private var subscriptions: [String: Subscription] = [:]
    private var socket: (any WebSocketChannel)?
    private var socketNumber = 0
    private var acknowledged = false
    private var lastActivity: Duration = .zero
    private var activityLimit: Duration = .zero
    private var deathReason: RealtimeError?
    private var carriedTraffic = false
    private var runner: Task<Void, Never>?
    private var watchdog: Task<Void, Never>?

    /// A connection speaking `dialect` through `connector`.
    public init(
        dialect: any RealtimeDialect, connector: any WebSocketConnector, settings: Settings = Settings(),
        clock: TimeSource = .system, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger = .disabled
    ) {
        self.dialect = dialect
        self.connector = connector
        self.settings = settings
        self.clock = clock
        self.random = random
        self.logger = logger
    }

    /// Subscribes with `request` (a GraphQL payload or an Events channel, as the dialect
    /// takes). The stream yields each `data` payload; it ends when the server completes the
    /// subscription, throws a ``RealtimeError`` when it is refused or the connection gives up,
    /// and sends the unsubscribe frame when the consumer stops iterating.
    public func subscribe(_ request: String) -> AsyncThrowingStream<JSONValue, any Error> {
        subscribe(request, transform: { $0 }, failure: { $0 }, onEnd: {})
    }

    /// ``subscribe(_:)`` with each payload turned into `Element` by `transform` and each
    /// error into the caller's by `failure`, on the connection's own task (no task per
    /// subscription in between); `onEnd` runs once when the stream ends for any reason.
    public func subscribe<Element: Sendable>(
        _ request: String, transform: @escaping @Sendable (JSONValue) -> Element, failure: @escaping @Sendable (RealtimeError) -> any Error,
        onEnd: @escaping @Sendable () -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let id = UUID().uuidString.lowercased()
        // The oldest are kept: the subscriber reads every message up to the overflow, in order.
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(bufferingPolicy: .bufferingOldest(settings.bufferLimit))
        continuation.onTermination = { [weak self] _ in
            onEnd()
            Task { await self?.unsubscribe(id) }
        }
        subscriptions[id] = Subscription(
            request: request,
            deliver: { payload in
                if case .dropped = continuation.yield(transform(payload)) { return false }
                return true
            },
            finish: { error in continuation.finish(throwing: error.map(failure)) })
        logger.debug("subscription added", metadata: ["endpoint": "\(dialect.endpoint)", "subscription": "\(id)"])
        if runner == nil {
            runner = Task { await self.run() }
        } else if acknowledged {
            Task { await self.start(id) }
        }
        return stream
    }

    /// The number of live subscriptions.
    public var subscriptionCount: Int { subscriptions.count }

    /// Ends every subscription (their streams finish) and closes the socket.
    public func close() async {
        finishAll(nil)
        await socket?.close()
    }

    // MARK: the connection's life

    private func run() async {
        var attempt = 0
        var failures = 0
        var lastReason = "none"
        var first = true
        while !subscriptions.isEmpty {
            if !first {
                if failures >= settings.backoff.maxAttempts {
                    finishAll(.gaveUp(endpoint: dialect.endpoint, attempts: failures, lastReason: lastReason))
                    break
                }
                let delay = settings.backoff.delay(after: attempt + 1, random: random())
                logger.info("reconnecting", metadata: ["endpoint": "\(dialect.endpoint)", "after": "\(delay)"])
                do { try await clock.sleep(for: delay) } catch { break }  // cancelled: the connection is closing
                attempt += 1
                if subscriptions.isEmpty { break }
            }
            first = false
            do {
                // A socket acknowledged and dropped at once, again and again, counts as a
                // failure: only one that carried a keep-alive or data starts the waits afresh.
                if try await connectAndServe(), carriedTraffic {
                    attempt = 0
                    failures = 0
                } else {
                    failures += 1
                }
                lastReason = deathReason?.description ?? "the socket closed"
            } catch {
                if error.isFinal {
                    finishAll(error)
                    break
                }
                failures += 1
                lastReason = error.description
                logger.warning("connection failed", metadata: ["endpoint": "\(dialect.endpoint)", "reason": "\(error)"])
            }
        }
        runner = nil
    }

    /// One socket, from connecting to its end; true when it was acknowledged.
    private func connectAndServe() async throws(RealtimeError) -> Bool {
        let (url, subprotocols) = try await dialect.connectionRequest()
        let channel = try await connector.connect(to: url, subprotocols: subprotocols, logger: logger)
        socketNumber += 1
        socket = channel
        acknowledged = false
        deathReason = nil
        carriedTraffic = false
        for id in subscriptions.keys { subscriptions[id]?.started = false }
        lastActivity = clock.elapsed()
        activityLimit = settings.acknowledgementTimeout
        logger.debug("connected", metadata: ["endpoint": "\(dialect.endpoint)", "socket": "\(socketNumber)"])
        restartWatchdog(channel)
        defer { watchdog?.cancel() }
        var refusal: RealtimeError?
        do { try await channel.send(dialect.connectionInitFrame) } catch { refusal = error }
        if refusal == nil {
            for await frame in channel.inbound {
                if let error = await handle(frame) {
                    refusal = error
                    break
                }
                if subscriptions.isEmpty { break }
            }
        }
        await channel.close()
        socket = nil
        let wasAcknowledged = acknowledged
        acknowledged = false
        logger.debug("socket closed", metadata: ["endpoint": "\(dialect.endpoint)", "socket": "\(socketNumber)"])
        if let refusal { throw refusal }
        if !wasAcknowledged, let deathReason { throw deathReason }
        return wasAcknowledged
    }

    /// Watches `channel` from now, under the current limit.
    private func restartWatchdog(_ channel: any WebSocketChannel) {
        watchdog?.cancel()
        let number = socketNumber
        watchdog = Task { await self.watch(channel, number: number) }
    }

    /// Closes a socket that stays silent past its limit (the ack wait, then the keep-alive).
    private func watch(_ channel: any WebSocketChannel, number: Int) async {
        while !Task.isCancelled, socketNumber == number {
            let now = clock.elapsed()
            let deadline = lastActivity + activityLimit
            if now >= deadline {
                let seconds = Double(activityLimit.components.seconds) + Double(activityLimit.components.attoseconds) / 1e18
                deathReason = acknowledged
                    ? .connectFailed(endpoint: dialect.endpoint, reason: "no keep-alive or data for \(seconds) s")
                    : .noAcknowledgement(endpoint: dialect.endpoint, seconds: seconds)
                logger.warning("connection silent; replacing it", metadata: ["endpoint": "\(dialect.endpoint)", "silent_for": "\(seconds) s"])
                await channel.close()
                return
            }
            do { try await clock.sleep(for: deadline - now) } catch { return }
        }
    }

    /// Acts on one frame; returns an error that ends the connection.
    private func handle(_ frame: String) async -> RealtimeError? {
        lastActivity = clock.elapsed()
        switch dialect.parse(frame) {
        case .connectionAcknowledged(let timeout):
            acknowledged = true
            activityLimit = timeout ?? settings.keepAliveTimeout
            if let socket { restartWatchdog(socket) }
            logger.debug("connection acknowledged", metadata: ["endpoint": "\(dialect.endpoint)", "keep_alive": "\(activityLimit)"])
            for id in subscriptions.keys { await start(id) }
        case .keepAlive: carriedTraffic = acknowledged
        case .subscribed(let id): logger.debug("subscribed", metadata: ["subscription": "\(id)"])
        case .data(let id, let payload):
            carriedTraffic = acknowledged
            if subscriptions[id]?.deliver(payload) == false { await endBehind(id) }
        case .subscriptionFailed(let id, let errors): end(id, .subscriptionRefused(endpoint: dialect.endpoint, errors: errors))
        case .completed(let id): end(id, nil)
        case .connectionFailed(let errors): return .connectionRefused(endpoint: dialect.endpoint, errors: errors)
        case .failed(let errors): logger.warning("server error", metadata: ["errors": "\(errors.map(\.description))"])
        case .unknown(let type): logger.debug("unknown message type ignored", metadata: ["type": "\(Redaction.quoted(type, limit: 40))"])
        case .malformed: logger.warning("malformed frame ignored", metadata: ["endpoint": "\(dialect.endpoint)", "bytes": "\(frame.utf8.count)"])
        }
        return nil
    }

    /// Sends subscription `id`'s start frame on the current socket, once.
    private func start(_ id: String) async {
        guard acknowledged, let channel = socket, let subscription = subscriptions[id], !subscription.started else { return }
        subscriptions[id]?.started = true
        let number = socketNumber
        do {
            let frame = try await dialect.subscribeFrame(id: id, request: subscription.request)
            guard socketNumber == number, subscriptions[id] != nil else { return }
            try await channel.send(frame)
        } catch where error.isFinal {
            end(id, error)
        } catch {
            logger.debug("subscription not sent; the next connection sends it", metadata: ["subscription": "\(id)", "reason": "\(error)"])
        }
    }

    private func unsubscribe(_ id: String) async {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        logger.debug("subscription ended by its consumer", metadata: ["subscription": "\(id)"])
        if subscription.started, acknowledged, let channel = socket {
            try? await channel.send(dialect.unsubscribeFrame(id: id))
        }
        if subscriptions.isEmpty { await socket?.close() }
    }

    /// Ends a subscription whose subscriber fell `bufferLimit` messages behind: the server is
    /// told to stop, and the subscriber reads what was kept, then the error, once.
    private func endBehind(_ id: String) async {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        logger.warning("subscriber fell behind; subscription ended", metadata: ["subscription": "\(id)", "kept": "\(settings.bufferLimit)"])
        if subscription.started, acknowledged, let channel = socket {
            try? await channel.send(dialect.unsubscribeFrame(id: id))
        }
        subscription.finish(.subscriberBehind(endpoint: dialect.endpoint, limit: settings.bufferLimit))
        if subscriptions.isEmpty { await socket?.close() }
    }

    private func end(_ id: String, _ error: RealtimeError?) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.finish(error)
    }

    private func finishAll(_ error: RealtimeError?) {
        let ending = subscriptions
        subscriptions.removeAll()
        for subscription in ending.values { subscription.finish(error) }
    }
}

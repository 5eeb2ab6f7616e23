public import MultiAuthCore
import Synchronization

/// A provider's key set from its JWKS URL, for a server that checks tokens for as long as it
/// runs: fetched again once it is `maxAge` old, and early when a token names a key the set
/// lacks (a provider rotating its keys), at most once per `refetchInterval` however many such
/// tokens arrive (a flood of forged key ids costs the provider one fetch a minute). One fetch
/// is in flight at a time; when a fetch fails, the keys held are kept.
public actor JSONWebKeySetCache {
    /// Fetches the key set; its error is the caller's (a transport's, a provider's).
    public typealias Fetch = @Sendable () async throws -> JSONWebKeySet

    private var lastAttempt: Double
    private var inFlight: Task<Result<JSONWebKeySet, any Error>, Never>?
    private let maxAge: Double
    private let refetchInterval: Double
    private let clock: TimeSource
    private let fetch: Fetch
    /// The keys held and when they were fetched: the actor writes them, and callers that must
    /// not suspend read them without entering it.
    private nonisolated let held: Mutex<(keys: JSONWebKeySet, fetchedAt: Double)>

    /// Fetches the key set once, then keeps it as described above.
    /// - Throws: the first fetch's error.
    public init(
        maxAge: Duration = .seconds(3_600), refetchInterval: Duration = .seconds(60), clock: TimeSource = .system, fetch: @escaping Fetch
    ) async throws {
        let keys = try await fetch()
        lastAttempt = clock.now()
        held = Mutex((keys, lastAttempt))
        self.maxAge = maxAge.inSeconds
        self.refetchInterval = refetchInterval.inSeconds
        self.clock = clock
        self.fetch = fetch
    }

    /// The keys to check a token naming key `kid` (or none) with.
    public func keys(for kid: String?) async -> JSONWebKeySet {
        let now = clock.now()
        let (keys, fetchedAt) = held.withLock { $0 }
        guard isFetchDue(keys, fetchedAt: fetchedAt, kid: kid, now: now), now - lastAttempt >= refetchInterval || inFlight != nil else {
            return keys
        }
        let task = inFlight ?? startFetch(at: now)
        let result = await task.value
        if inFlight == task { inFlight = nil }
        if case .success(let fresh) = result { held.withLock { $0 = (fresh, lastAttempt) } }
        return held.withLock { $0.keys }
    }

    /// The keys to check a token naming key `kid` (or none) with, when ``keys(for:)`` would
    /// return them at once: the set holds that key and is younger than `maxAge`. Nil when a
    /// fetch may be due, which only ``keys(for:)`` can wait for. For callers that must not
    /// suspend, such as a check made on a SwiftNIO event loop.
    public nonisolated func keysWithoutWaiting(for kid: String?) -> JSONWebKeySet? {
        let (keys, fetchedAt) = held.withLock { $0 }
        return isFetchDue(keys, fetchedAt: fetchedAt, kid: kid, now: clock.now()) ? nil : keys
    }

    /// True when `keys`, fetched at `fetchedAt`, are `maxAge` old or lack key `kid`.
    private nonisolated func isFetchDue(_ keys: JSONWebKeySet, fetchedAt: Double, kid: String?, now: Double) -> Bool {
        now - fetchedAt >= maxAge || kid.map { kid in !keys.keys.contains { $0.kid == kid } } ?? false
    }

    /// How many fetches were made after the first (for tests and diagnostics).
    public private(set) var refetches = 0

    private func startFetch(at now: Double) -> Task<Result<JSONWebKeySet, any Error>, Never> {
        lastAttempt = now
        refetches += 1
        let fetch = fetch
        let task = Task { () -> Result<JSONWebKeySet, any Error> in
            do { return .success(try await fetch()) } catch { return .failure(error) }
        }
        inFlight = task
        return task
    }
}

/// How long to wait before connecting again: exponential from `base`, capped at `cap`, with
/// "equal jitter" (half the step fixed, half random) so many clients dropped at once do not
/// come back together, and the wait never collapses to zero.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The first wait's upper bound.
    public var base: Duration
    /// The largest wait.
    public var cap: Duration
    /// Consecutive failed connections after which the subscriptions end with
    /// ``RealtimeError/gaveUp(endpoint:attempts:lastReason:)``.
    public var maxAttempts: Int

    /// The defaults: from 100 ms, at most 5 s, giving up after 10 failures in a row (about 30 s).
    public init(base: Duration = .milliseconds(100), cap: Duration = .seconds(5), maxAttempts: Int = 10) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// The wait before attempt `attempt` (0 for the first reconnection), for `random` in 0..<1.
    public func delay(attempt: Int, random: Double) -> Duration {
        let step = min(cap, base * (1 << min(attempt, 30)))
        return step / 2 + step * (min(max(random, 0), 1) / 2)
    }
}

/// The monotonic clock the real-time engine waits on; tests pass their own.
public struct RealtimeClock: Sendable {
    let read: @Sendable () -> Duration
    let wait: @Sendable (Duration) async throws -> Void

    /// A clock reading `now` and sleeping through `sleep`.
    public init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        read = now
        wait = sleep
    }

    /// Time since an arbitrary fixed point.
    public func now() -> Duration { read() }

    /// Sleeps for `duration` (throws when the task is cancelled).
    public func sleep(for duration: Duration) async throws { try await wait(duration) }

    /// `ContinuousClock`.
    public static let continuous: RealtimeClock = {
        let origin = ContinuousClock.now
        return RealtimeClock(now: { ContinuousClock.now - origin }, sleep: { try await Task.sleep(for: $0) })
    }()
}

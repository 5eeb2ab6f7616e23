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

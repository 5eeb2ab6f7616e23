#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one clock MultiAuth reads, so tests drive time instead of sleeping: the wall clock
/// (seconds since 1970) that expiry times and signing dates are compared with, the elapsed
/// time that keep-alive and reconnection deadlines are measured on, and the sleep that waits
/// for them. ``SigningClock`` adds a learned skew to it; nothing else keeps time of its own.
public struct TimeSource: Sendable {
    @usableFromInline let read: @Sendable () -> Double
    let monotonic: @Sendable () -> Duration
    let wait: @Sendable (Duration) async throws -> Void

    /// A time source whose wall clock calls `now` each time; its elapsed time is the system's
    /// and it sleeps for real (a test that only reads dates needs nothing more).
    public init(_ now: @escaping @Sendable () -> Double) {
        self.init(now: now, elapsed: TimeSource.system.monotonic, sleep: TimeSource.system.wait)
    }

    /// A time source with all three parts given: `now` (seconds since 1970), `elapsed` (time
    /// since a fixed point, never going back) and `sleep`, which throws when its task is cancelled.
    public init(
        now: @escaping @Sendable () -> Double, elapsed: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        read = now
        monotonic = elapsed
        wait = sleep
    }

    /// Seconds since 1970.
    @inlinable
    public func now() -> Double { read() }

    /// Time since a fixed point; it never goes back, whatever the wall clock does.
    public func elapsed() -> Duration { monotonic() }

    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await wait(duration) }

    /// The system's clocks: `CLOCK_REALTIME`, `ContinuousClock`, and `Task.sleep`.
    public static let system: TimeSource = {
        let origin = ContinuousClock.now
        return TimeSource(
            now: {
                var spec = timespec()
                clock_gettime(CLOCK_REALTIME, &spec)
                return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
            },
            elapsed: { ContinuousClock.now - origin },
            sleep: { try await Task.sleep(for: $0) })
    }()
}

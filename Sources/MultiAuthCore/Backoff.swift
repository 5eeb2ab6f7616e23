/// How many attempts to make and how long to wait between them.
///
/// Waits grow exponentially from `base` to at most `cap`, with jitter so clients that failed
/// together do not come back together: "equal" (half of each step fixed, half random: a
/// wait never collapses to zero) or "full" (a random fraction of the step, botocore's). HTTP
/// calls retry by `RetryStrategy` (MultiAuthAWSClient), which waits with a full-jitter
/// `Backoff`; the rest use it directly: credential endpoints, instance metadata, real-time
/// reconnections, saving a refreshed login and lock waits. A wait ends early when the task is
/// cancelled, and the caller stops retrying then.
public struct Backoff: Sendable, Equatable {
    /// How a wait is drawn from its step.
    public enum Jitter: Sendable, Equatable {
        /// Half the step, plus a random part of the other half.
        case equal
        /// A random fraction of the step.
        case full
    }

    /// The first wait's upper bound.
    public var base: Duration
    /// The largest wait.
    public var cap: Duration
    /// The most attempts, the first included (at least 1).
    public var maxAttempts: Int
    /// How each wait is drawn from its step.
    public var jitter: Jitter

    /// Waits from `base` up to `cap`, for at most `maxAttempts` attempts.
    public init(base: Duration = .milliseconds(100), cap: Duration = .seconds(5), maxAttempts: Int = 3, jitter: Jitter = .equal) {
        self.base = base
        self.cap = cap
        self.maxAttempts = max(1, maxAttempts)
        self.jitter = jitter
    }

    /// One attempt, no retry.
    public static let once = Backoff(maxAttempts: 1)

    /// True when another attempt may follow `failures` failed ones.
    public func allowsRetry(after failures: Int) -> Bool { failures < maxAttempts }

    /// The wait after `failures` failed attempts in a row (1 for the first), for `random` in 0...1.
    public func delay(after failures: Int, random: Double = .random(in: 0...1)) -> Duration {
        let step = min(cap, base * (1 << min(max(failures - 1, 0), 30)))
        let random = min(max(random, 0), 1)
        return switch jitter {
        case .equal: step / 2 + step * (random / 2)
        case .full: step * random
        }
    }

    /// Sleeps ``delay(after:random:)`` on `clock`; throws `CancellationError` as soon as the
    /// task is cancelled, so the caller stops instead of trying again.
    public func wait(after failures: Int, clock: TimeSource = .system) async throws(CancellationError) {
        do { try await clock.sleep(for: delay(after: failures)) } catch { throw CancellationError() }
    }
}

/// Bounds a wait: runs work and cancels it when its time is up, so no caller waits longer
/// than it asked (issue 19's "waits that never end").
public enum Deadline {
    /// When the innermost ``run(for:_:)`` around the current task ends, for work inside
    /// it that plans waits (an AWS call does not start a retry wait that would end later).
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `work`; when `limit` passes first, `work` is cancelled and, once it has unwound,
    /// `nil` is returned. Work must honour cancellation (libcurl transfers, subprocesses and
    /// sleeps in MultiAuth do). A non-positive `limit` means no deadline.
    /// Inside `work`, ``current`` is the earlier of this deadline and any enclosing one.
    public static func run<T: Sendable>(for limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
        guard limit > .zero else { return await work() }
        // The clamp (a year) keeps absurd limits from overflowing the clock's arithmetic.
        let bounded = min(limit, .seconds(31_536_000))
        let end = ContinuousClock.now + bounded
        let inner = current.map { min($0, end) } ?? end
        return await withTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .finished(await Deadline.$current.withValue(inner) { await work() }) }
            group.addTask {
                try? await Task.sleep(for: bounded)
                return .expired
            }
            let first = await group.next() ?? .expired
            group.cancelAll()
            guard case .finished(let value) = first else { return nil }
            return value
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        case expired
    }
}

extension Duration {
    /// The span in seconds, for arithmetic with wall-clock readings and for messages.
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// A span of `seconds`, however large or odd: not finite or negative is zero, and more
    /// than a year is a year (`Duration.seconds(_:)` traps on values it cannot hold).
    package static func clamped(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64(min(seconds, 31_536_000) * 1000))
    }
}

extension Double {
    /// Seconds for a message: `3` for whole numbers, else the usual decimal text.
    package var secondsText: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

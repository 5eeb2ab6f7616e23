/// Bounds a wait: runs work and cancels it when its time is up, so no caller waits longer
/// than it asked (issue 19's "waits that never end").
public enum Deadline {
    /// When the innermost ``run(seconds:_:)`` around the current task ends, for work inside
    /// it that plans waits (an AWS call does not start a retry wait that would end later).
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `work`; when `seconds` pass first, `work` is cancelled and, once it has unwound,
    /// `nil` is returned. Work must honour cancellation (libcurl transfers, subprocesses and
    /// sleeps in MultiAuth do). A non-finite or non-positive `seconds` means no deadline.
    /// Inside `work`, ``current`` is the earlier of this deadline and any enclosing one.
    public static func run<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async -> T) async -> T? {
        guard seconds.isFinite, seconds > 0 else { return await work() }
        let end = ContinuousClock.now + .milliseconds(Int64(min(seconds, 31_536_000) * 1000))
        let inner = current.map { min($0, end) } ?? end
        return await withTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .finished(await Deadline.$current.withValue(inner) { await work() }) }
            group.addTask {
                // The clamp keeps absurd values from trapping in Duration's conversion.
                try? await Task.sleep(for: .milliseconds(Int64(min(seconds, 31_536_000) * 1000)))
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

extension Double {
    /// Seconds for a message: `3` for whole numbers, else the usual decimal text.
    package var secondsText: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

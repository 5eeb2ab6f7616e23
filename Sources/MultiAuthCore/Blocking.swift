import Dispatch
import Synchronization

/// Runs blocking work (file reads, `fsync`, `flock`, a libcurl transfer) on a thread of
/// ``BlockingPool/shared``, never on a cooperative thread, and returns its result.
///
/// This is the one place MultiAuth leaves the cooperative pool; cancellation is the
/// caller's concern (pass a flag the work checks), and every blocking wait MultiAuth makes is
/// bounded by its own deadline (transfer and lock timeouts), so a thread is never held forever.
public func runBlocking<Success: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () -> Result<Success, Failure>
) async throws(Failure) -> Success {
    let result: Result<Success, Failure> = await withCheckedContinuation { continuation in
        BlockingPool.shared.submit { continuation.resume(returning: work()) }
    }
    return try result.get()
}

/// A pool of at most `limit` threads for blocking work: a thread is started when work waits
/// and none is idle, up to the limit; past it, work waits its turn. A fresh serial queue per
/// call, as before, let a busy proxy or gateway grow threads without bound; the global
/// concurrent queue keeps about one thread per core on Linux, so a few hung calls starved the
/// rest. 64 threads hold far more blocked calls than a 2-core machine serves at once, and
/// each call's wait has its own deadline.
public final class BlockingPool: Sendable {
    /// The pool ``runBlocking(_:)`` uses.
    public static let shared = BlockingPool(limit: 64)

    /// The most threads this pool runs.
    public let limit: Int

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var next = 0
        var idle = 0
        var threads = 0
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    /// A pool of at most `limit` threads (at least 1).
    public init(limit: Int) { self.limit = max(1, limit) }

    /// Threads started so far (never more than ``limit``).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// Runs `job` on one of the pool's threads, as soon as one is free.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let startsThread = state.withLock { state in
            state.jobs.append(job)
            guard state.jobs.count - state.next > state.idle, state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        if startsThread {
            // A block that never returns keeps its dispatch thread: that thread is the pool's.
            DispatchQueue(label: "multiauth.blocking", qos: .userInitiated).async { self.work() }
        }
        available.signal()
    }

    private func work() {
        while true {
            state.withLock { $0.idle += 1 }
            available.wait()
            let job = state.withLock { state -> (@Sendable () -> Void) in
                state.idle -= 1
                let job = state.jobs[state.next]
                state.next += 1
                if state.next == state.jobs.count {
                    state.jobs.removeAll(keepingCapacity: true)
                    state.next = 0
                }
                return job
            }
            job()
        }
    }
}

import Synchronization

/// One mutation path per client: callers run one at a time, in the order they arrived, so a
/// replay of the offline queue and a new mutation never interleave (two concurrent replays
/// would send a queued mutation twice, and a new one could overtake older queued ones).
final class MutationLane: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `work` when every earlier caller has finished.
    func run<T: Sendable, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
        await enter()
        defer { leave() }
        return try await work()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

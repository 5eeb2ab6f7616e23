import Dispatch
public import HTTPTypes
import Synchronization

/// A response handed from a sender to a reader while it arrives, one chunk at a time: how
/// the proxy and gateway pass an upstream's answer on without holding it.
///
/// The sender calls ``begin(_:)`` with the head of a final response whose status is below
/// 400, then ``write(_:)`` (or ``writeBlocking(_:)`` on a thread of its own) per chunk; each
/// write waits until the reader has taken the chunk, so at most one chunk is held. Error
/// responses are never relayed: they stay in memory, where retries and clock-skew checks read
/// them. Whoever runs the exchange calls ``end(failure:)`` once the send has returned or
/// thrown. The reader waits for ``start()``, then calls ``next()`` until it returns nil, or
/// ``cancel()`` when it stops early, which fails the sender's next write.
public final class ResponseRelay: Sendable {
    /// How the exchange began.
    public enum Start: Sendable {
        /// The body follows through ``ResponseRelay/next()``.
        case streaming(HTTPResponse)
        /// The exchange ended without relaying: an error status (its body in memory), or a failure.
        case notStreamed
    }

    private struct State {
        var head: HTTPResponse?
        var ended = false
        var failure: (any Error)?
        var readerGone = false
        var chunk: [UInt8]?
        var chunkTaken: (@Sendable (Bool) -> Void)?
        var startWaiter: CheckedContinuation<Start, Never>?
        var chunkWaiter: CheckedContinuation<[UInt8]?, any Error>?
    }

    private let state = Mutex(State())

    /// Creates a relay with nothing in it yet.
    public init() {}

    // MARK: the sender

    /// The head of the response whose body is relayed; the reader's ``start()`` returns it.
    public func begin(_ head: HTTPResponse) {
        let waiter = state.withLock { state -> CheckedContinuation<Start, Never>? in
            guard state.head == nil, !state.ended else { return nil }
            state.head = head
            defer { state.startWaiter = nil }
            return state.startWaiter
        }
        waiter?.resume(returning: .streaming(head))
    }

    /// Hands `chunk` to the reader and returns once it has been taken: true, or false when the
    /// reader has gone (the sender should stop).
    public func write(_ chunk: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in offer(chunk) { continuation.resume(returning: $0) } }
    }

    /// ``write(_:)`` for a sender on a thread of its own (never a cooperative one): blocks it
    /// until the chunk is taken.
    public func writeBlocking(_ chunk: [UInt8]) -> Bool {
        let taken = DispatchSemaphore(value: 0)
        let result = Atomic<Bool>(false)
        offer(chunk) { ok in
            result.store(ok, ordering: .relaxed)
            taken.signal()
        }
        taken.wait()
        return result.load(ordering: .relaxed)
    }

    private func offer(_ chunk: [UInt8], taken: @escaping @Sendable (Bool) -> Void) {
        enum Action { case refuse, deliver(CheckedContinuation<[UInt8]?, any Error>), hold }
        let action = state.withLock { state -> Action in
            if state.readerGone || state.ended { return .refuse }
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return .deliver(waiter)
            }
            state.chunk = chunk
            state.chunkTaken = taken
            return .hold
        }
        switch action {
        case .refuse: taken(false)
        case .deliver(let waiter):
            waiter.resume(returning: chunk)
            taken(true)
        case .hold: break
        }
    }

    /// Marks the exchange over: the reader's ``next()`` returns nil after the last chunk, or
    /// throws `failure`; a reader still waiting in ``start()`` learns nothing was relayed.
    public func end(failure: (any Error)? = nil) {
        let (startWaiter, chunkWaiter) = state.withLock { state in
            state.ended = true
            state.failure = failure
            defer {
                state.startWaiter = nil
                state.chunkWaiter = nil
            }
            return (state.startWaiter, state.chunkWaiter)
        }
        startWaiter?.resume(returning: .notStreamed)
        guard let chunkWaiter else { return }
        if let failure { chunkWaiter.resume(throwing: failure) } else { chunkWaiter.resume(returning: nil) }
    }

    // MARK: the reader

    /// Waits until the response's head arrives or the exchange ends without one.
    public func start() async -> Start {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Start? in
                if let head = state.head { return .streaming(head) }
                if state.ended { return .notStreamed }
                state.startWaiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The next chunk of the body; nil after the last. Throws the sender's failure.
    public func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            enum Ready { case chunk([UInt8], (@Sendable (Bool) -> Void)?), finished((any Error)?), wait }
            let ready = state.withLock { state -> Ready in
                if let chunk = state.chunk {
                    defer {
                        state.chunk = nil
                        state.chunkTaken = nil
                    }
                    return .chunk(chunk, state.chunkTaken)
                }
                if state.ended { return .finished(state.failure) }
                state.chunkWaiter = continuation
                return .wait
            }
            switch ready {
            case .chunk(let chunk, let taken):
                continuation.resume(returning: chunk)
                taken?(true)
            case .finished(let failure?): continuation.resume(throwing: failure)
            case .finished(nil): continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// True while a chunk waits for the reader (for tests of the waiting write).
    package var isHoldingAChunk: Bool { state.withLock { $0.chunk != nil } }

    /// The reader stops early: a waiting or later write returns false.
    public func cancel() {
        let taken = state.withLock { state -> (@Sendable (Bool) -> Void)? in
            state.readerGone = true
            state.chunk = nil
            defer { state.chunkTaken = nil }
            return state.chunkTaken
        }
        taken?(false)
    }
}

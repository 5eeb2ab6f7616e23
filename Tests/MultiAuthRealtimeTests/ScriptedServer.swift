import HTTPTypes
import Logging
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthRealtime
import MultiAuthSigV4
import Synchronization

/// A server that answers each frame the client sends from a script, for the engine's
/// behaviour on frames no well-behaved peer sends (malformed, unknown, never an ack).
final class ScriptedServer: WebSocketConnector, @unchecked Sendable {
    /// Given a frame from the client, the frames to send back.
    let reply: @Sendable (String) -> [String]
    /// A reply that closes the socket.
    static let close = "<close>"
    let connections = Mutex(0)
    let sent = Mutex<[String]>([])

    /// Replies held back by ``hold()``, sent by ``release()``.
    private let held = Mutex<(isHeld: Bool, pending: [@Sendable () -> Void])>((false, []))

    init(reply: @escaping @Sendable (String) -> [String]) { self.reply = reply }

    /// Holds every reply back until ``release()``: for a test that needs several requests
    /// made before the server answers any of them, whatever the scheduling.
    func hold() { held.withLock { $0.isHeld = true } }

    /// Sends the replies held back, and answers at once from now on.
    func release() {
        let pending = held.withLock { state in
            state.isHeld = false
            defer { state.pending = [] }
            return state.pending
        }
        for deliver in pending { deliver() }
    }

    /// Runs `deliver` now, or at ``release()`` while held.
    fileprivate func answer(_ deliver: @escaping @Sendable () -> Void) {
        let now = held.withLock { state in
            if state.isHeld { state.pending.append(deliver) }
            return !state.isHeld
        }
        if now { deliver() }
    }

    func connect(to url: String, subprotocols: [String], logger: Logger) async throws(RealtimeError) -> any WebSocketChannel {
        connections.withLock { $0 += 1 }
        return Channel(server: self)
    }

    final class Channel: WebSocketChannel, @unchecked Sendable {
        let inbound: AsyncStream<String>
        let continuation: AsyncStream<String>.Continuation
        let server: ScriptedServer

        init(server: ScriptedServer) {
            self.server = server
            (inbound, continuation) = AsyncStream.makeStream()
        }

        func send(_ text: String) async throws(RealtimeError) {
            server.sent.withLock { $0.append(text) }
            let (frames, continuation) = (server.reply(text), continuation)
            server.answer {
                for frame in frames {
                    if frame == ScriptedServer.close { continuation.finish() } else { continuation.yield(frame) }
                }
            }
        }

        func close() async { continuation.finish() }
    }
}

/// A clock that moves only when the test advances it; sleepers wake when their time comes.
final class ManualClock: @unchecked Sendable {
    private struct State {
        var now: Duration = .zero
        var nextId = 0
        var sleepers: [Int: (until: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var slept: [Duration] = []
    }

    private let state = Mutex(State())

    /// Every sleep asked for, in order.
    var slept: [Duration] { state.withLock { $0.slept } }

    var clock: TimeSource {
        TimeSource(now: { 1_700_000_000 }, elapsed: { self.state.withLock { $0.now } }, sleep: { duration in try await self.sleep(duration) })
    }

    private func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wakeNow = state.withLock { state -> Bool in
                    state.slept.append(duration)
                    if Task.isCancelled { return true }
                    state.sleepers[id] = (state.now + duration, continuation)
                    return false
                }
                if wakeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes the sleepers whose time has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += duration
            let ids = state.sleepers.filter { $0.value.until <= state.now }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    /// Advances in `step`s, letting the engine run between them, until `done` or `limit` steps.
    func drive(step: Duration, limit: Int = 2000, until done: () async -> Bool) async throws {
        for _ in 0..<limit {
            if await done() { return }
            advance(by: step)
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

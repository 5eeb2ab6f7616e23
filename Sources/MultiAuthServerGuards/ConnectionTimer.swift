package import NIOCore

/// A deadline on one connection's event loop that is moved far more often than it fires (a
/// limit per request, set and cleared on every request): setting or clearing it only stores a
/// time; one scheduled task looks at that time when it fires, and is scheduled again for a
/// later one. A task scheduled and cancelled per request cost more than the rest of a
/// request head's handling.
///
/// Used on the event loop only; ``stop()`` it when the connection ends.
package struct ConnectionTimer {
    private var deadline: NIODeadline?
    private var task: Scheduled<Void>?
    private var firesAt = NIODeadline.distantFuture

    package init() {}

    /// True while a deadline is set.
    package var isSet: Bool { deadline != nil }

    /// Sets the deadline. `check` runs on `loop` when the scheduled task fires: the owning
    /// handler calls ``fired(on:check:)`` there, and acts when that says the deadline passed.
    package mutating func set(_ deadline: NIODeadline, on loop: NIOIsolatedEventLoop, check: @escaping () -> Void) {
        self.deadline = deadline
        // A task already due no later than the new deadline looks again when it fires.
        guard task == nil || firesAt > deadline else { return }
        task?.cancel()
        firesAt = deadline
        task = loop.scheduleTask(deadline: deadline, check)
    }

    /// Clears the deadline; a scheduled task stays, and finds nothing to do when it fires.
    package mutating func clear() { deadline = nil }

    /// Called when the scheduled task runs: true when the deadline has passed (it is then
    /// cleared); otherwise the task is scheduled again for the deadline, if one is set.
    package mutating func fired(on loop: NIOIsolatedEventLoop, check: @escaping () -> Void) -> Bool {
        task = nil
        firesAt = .distantFuture
        guard let deadline else { return false }
        guard deadline <= loop.nonisolated().now else {
            set(deadline, on: loop, check: check)
            return false
        }
        self.deadline = nil
        return true
    }

    /// Clears the deadline and cancels the scheduled task (the connection ended).
    package mutating func stop() {
        deadline = nil
        task?.cancel()
        task = nil
        firesAt = .distantFuture
    }
}

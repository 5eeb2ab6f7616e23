public import Logging
public import Synchronization

/// A value with an expiry time (seconds since 1970), or none for a value that never expires.
public struct Expiring<Value: Sendable>: Sendable {
    /// The value.
    public var value: Value
    /// When it stops being valid; `nil` for never.
    public var expiresAt: Double?

    /// Creates one.
    public init(_ value: Value, expiresAt: Double?) {
        self.value = value
        self.expiresAt = expiresAt
    }
}

/// The one refresh engine behind credentials and tokens (Soto's expiring value, botocore's
/// windows): a cached value refreshed ahead of its expiry, with exactly one refresh in
/// flight however many callers ask.
///
/// - More than `advisoryWindow` left: the cached value, no waiting.
/// - Inside the advisory window: the cached value at once, while one refresh runs in the
///   background; if it fails, the value is kept.
/// - Inside the mandatory window (or nothing cached): callers wait for the single refresh.
///   When it fails for a reason `keepsCurrent` accepts (a transient one) and the cached value
///   has not yet expired, callers get the cached value; otherwise the failure.
///
/// The clock is injected, so tests drive time instead of sleeping.
public final class ExpiringValueCache<Value: Sendable, Failure: Error>: Sendable {
    /// Produces a fresh value from the current one (if any).
    public typealias Refresh = @Sendable (Expiring<Value>?) async throws(Failure) -> Expiring<Value>
    /// Runs after each successful refresh, with the new value already cached (to save it). Its
    /// failure is reported to the callers of that refresh; the new value stays cached.
    public typealias AfterRefresh = @Sendable (Expiring<Value>) async throws(Failure) -> Void

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var cached: Expiring<Value>?
        var inFlight: Task<Result<Expiring<Value>, Failure>, Never>?
        /// Callers waiting for `inFlight`: when the last of them is cancelled, so is it.
        var waiters = 0
        var refreshCount = 0

        init(cached: Expiring<Value>?) { self.cached = cached }
    }

    // Inlinable so the fast path is specialized for the caller's value type.
    @usableFromInline let state: Mutex<State>
    @usableFromInline let advisoryWindow: Double
    private let mandatoryWindow: Double
    @usableFromInline let clock: TimeSource
    private let logger: Logger
    private let refresh: Refresh
    private let afterRefresh: AfterRefresh?
    private let keepsCurrent: @Sendable (Failure) -> Bool

    /// Creates a cache, optionally holding `initial` already.
    public init(
        initial: Expiring<Value>? = nil, advisoryWindow: Duration, mandatoryWindow: Duration, clock: TimeSource = .system,
        logger: Logger = .disabled, keepsCurrent: @escaping @Sendable (Failure) -> Bool = { _ in true },
        afterRefresh: AfterRefresh? = nil, refresh: @escaping Refresh
    ) {
        state = Mutex(State(cached: initial))
        self.advisoryWindow = max(advisoryWindow, mandatoryWindow).inSeconds
        self.mandatoryWindow = mandatoryWindow.inSeconds
        self.clock = clock
        self.logger = logger
        self.keepsCurrent = keepsCurrent
        self.afterRefresh = afterRefresh
        self.refresh = refresh
    }

    /// The current value, refreshed as the windows say.
    @inlinable
    public func value() async throws(Failure) -> Value {
        if let fresh = freshValue() { return fresh }
        return try await current().value
    }

    /// The cached value when it is outside both windows: one clock read, one lock, one
    /// comparison, no suspension (the path nearly every call takes).
    @inlinable
    func freshValue() -> Value? {
        let now = clock.now()
        return state.withLock { state in
            guard let cached = state.cached else { return nil }
            guard let expiresAt = cached.expiresAt else { return cached.value }
            return expiresAt - now > advisoryWindow ? cached.value : nil
        }
    }

    /// The cached value when it is outside both windows, else nil: for a caller that must not
    /// suspend (an event loop), which takes the asynchronous way when this gives nil.
    package func valueWithoutWaiting() -> Value? { freshValue() }

    /// The current value with its expiry, refreshed as the windows say.
    public func current() async throws(Failure) -> Expiring<Value> {
        let now = clock.now()
        let step: Step = state.withLock { state in
            guard let cached = state.cached else { return .wait(joinRefresh(&state, reason: "nothing cached"), nil) }
            guard let expiresAt = cached.expiresAt else { return .use(cached) }
            let remaining = expiresAt - now
            if remaining > advisoryWindow { return .use(cached) }
            if remaining > mandatoryWindow {
                _ = ensureRefresh(&state, reason: "advisory window")
                return .use(cached)
            }
            return .wait(joinRefresh(&state, reason: "mandatory window"), cached)
        }
        switch step {
        case .use(let cached): return cached
        case .wait(let task, let previous):
            switch await wait(for: task) {
            case .success(let fresh): return fresh
            case .failure(let error):
                if let previous, keepsCurrent(error), previous.expiresAt.map({ $0 > clock.now() }) ?? true {
                    logger.debug("refresh failed; the current value is still valid and is kept", metadata: ["reason": "\(error)"])
                    return previous
                }
                throw error
            }
        }
    }

    /// Drops the cached value, so the next call refreshes (after a service rejected it).
    public func invalidate() { state.withLock { $0.cached = nil } }

    /// The value held now, without refreshing.
    public var held: Expiring<Value>? { state.withLock { $0.cached } }

    /// The time now on the cache's clock.
    public var clockNow: Double { clock.now() }

    /// How many refreshes were started (for tests and diagnostics).
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    private enum Step {
        case use(Expiring<Value>)
        case wait(Task<Result<Expiring<Value>, Failure>, Never>, Expiring<Value>?)
    }

    /// The refresh in flight, or a new one, counting the caller among its waiters.
    private func joinRefresh(_ state: inout State, reason: String) -> Task<Result<Expiring<Value>, Failure>, Never> {
        let task = ensureRefresh(&state, reason: reason)
        state.waiters += 1
        return task
    }

    /// The refresh's result. A caller cancelled meanwhile (a command's deadline) stops
    /// counting as a waiter; when it was the last, the refresh is cancelled too (a
    /// credential_process is stopped, a transfer aborted), so the wait ends with the
    /// refresh's failure instead of outliving the deadline.
    private func wait(for task: Task<Result<Expiring<Value>, Failure>, Never>) async -> Result<Expiring<Value>, Failure> {
        let ticket = WaitTicket()
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            if ticket.leave() { self.leave(task, cancelling: true) }
        }
        if ticket.leave() { leave(task, cancelling: false) }
        return result
    }

    private func leave(_ task: Task<Result<Expiring<Value>, Failure>, Never>, cancelling: Bool) {
        let last = state.withLock { state in
            guard state.inFlight == task else { return false }  // finished: its waiters no longer count
            state.waiters -= 1
            return state.waiters == 0
        }
        if cancelling, last { task.cancel() }
    }

    /// The refresh in flight, or a new one.
    private func ensureRefresh(_ state: inout State, reason: String) -> Task<Result<Expiring<Value>, Failure>, Never> {
        if let running = state.inFlight { return running }
        state.waiters = 0
        state.refreshCount += 1
        logger.debug("refreshing", metadata: ["trigger": "\(reason)"])
        let previous = state.cached
        let task = Task { [refresh, afterRefresh] () -> Result<Expiring<Value>, Failure> in
            let fresh: Expiring<Value>
            do throws(Failure) { fresh = try await refresh(previous) } catch {
                self.state.withLock { $0.inFlight = nil }
                return .failure(error)
            }
            // Cached before it is saved: a rotated secret must never be lost to a failed save.
            self.state.withLock { state in
                state.cached = fresh
                state.inFlight = nil
            }
            do throws(Failure) { try await afterRefresh?(fresh) } catch { return .failure(error) }
            return .success(fresh)
        }
        state.inFlight = task
        return task
    }
}

/// One caller's wait for a refresh: it leaves exactly once, by cancellation or by the end of
/// the wait, whichever comes first.
private final class WaitTicket: Sendable {
    private let left = Mutex(false)

    /// True the first time only.
    func leave() -> Bool {
        left.withLock { left in
            defer { left = true }
            return !left
        }
    }
}

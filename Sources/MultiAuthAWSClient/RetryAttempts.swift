package import HTTPTypes
package import MultiAuthHTTP
import MultiAuthCore

/// One call's attempts under a ``RetryStrategy``: after each outcome, whether to stop, sign
/// again for a corrected time, or wait and try again. Both HTTP clients drive their loops with
/// it, so the rules live in one place.
package struct RetryAttempts {
    /// What follows an outcome.
    package enum Next: Equatable, Sendable {
        /// Keep the outcome: a success, or a failure that is not retried.
        case finish
        /// Sign again and send at once: the clock was corrected (not counted as a retry).
        case signAgain
        /// Wait this long, then try again.
        case retry(after: Duration)
    }

    private let strategy: RetryStrategy
    private let quota: RetryQuota
    private let clock: SigningClock
    private let method: HTTPRequest.Method
    private let deadline: ContinuousClock.Instant?
    private let correctsSkew: Bool
    /// The attempts made so far.
    package private(set) var count = 0
    private var correctedSkew = false
    private var lastCost: Int?

    /// The attempts of one call with `method`; `correctsSkew` when its requests are signed.
    package init(
        _ strategy: RetryStrategy, quota: RetryQuota, clock: SigningClock, method: HTTPRequest.Method,
        deadline: ContinuousClock.Instant?, correctsSkew: Bool
    ) {
        self.strategy = strategy
        self.quota = quota
        self.clock = clock
        self.method = method
        self.deadline = deadline
        self.correctsSkew = correctsSkew
    }

    /// Counts an attempt about to be made.
    package mutating func begin() { count += 1 }

    /// After an answer; `canRepeat` is false when the body cannot be sent again.
    package mutating func next(after response: ReceivedResponse, canRepeat: Bool = true) -> Next {
        if (200..<300).contains(response.status) {
            quota.release(lastCost ?? 1)
            return .finish
        }
        guard canRepeat else { return .finish }
        if correctsSkew, !correctedSkew, clock.learn(from: response) {
            correctedSkew = true
            return .signAgain
        }
        guard strategy.isRetryable(status: response.status, code: ServerErrors.code(response)) else { return .finish }
        return retry(cost: RetryQuota.retryCost)
    }

    /// After a transport failure; `canRepeat` as for an answer.
    package mutating func next(after error: HTTPTransportError, canRepeat: Bool = true) -> Next {
        guard canRepeat, strategy.isRetryable(error, method: method) else { return .finish }
        let timedOut = if case .timedOut = error.kind { true } else { false }
        return retry(cost: timedOut ? RetryQuota.timeoutRetryCost : RetryQuota.retryCost)
    }

    private mutating func retry(cost: Int) -> Next {
        let wait = strategy.delay(after: count)
        guard strategy.backoff.allowsRetry(after: count), deadline.map({ .now + wait < $0 }) ?? true, quota.acquire(cost) else {
            return .finish
        }
        lastCost = cost
        return .retry(after: wait)
    }

    /// Sleeps `wait` on the client's clock.
    /// - Throws: `CancellationError` when the task is cancelled first.
    package func sleep(_ wait: Duration) async throws(CancellationError) {
        do { try await clock.source.sleep(for: wait) } catch { throw CancellationError() }
    }
}

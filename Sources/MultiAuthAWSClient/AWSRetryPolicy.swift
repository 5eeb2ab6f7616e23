import MultiAuthCore
import MultiAuthHTTP
import Synchronization

/// botocore's standard retry mode: which failures are tried again, how many attempts, how
/// long to wait, and the retry quota that stops a client from retrying into an outage.
///
/// Tried again: answers 500, 502, 503 and 504; the error codes `RequestTimeout`,
/// `RequestTimeoutException`, `PriorRequestNotComplete` and botocore's throttling codes; and a
/// service that could not be reached. The wait before attempt `n + 1` is a random fraction of
/// `min(base × 2^(n-1), 20 s)`. Each retry takes 5 from a quota of 500 (10 after a timeout),
/// and a success gives back 1, or what its last retry took; with the quota spent, failures
/// are not retried.
package struct AWSRetryPolicy: Sendable, Equatable {
    /// `retry_mode`'s three values; `legacy` differs only in its default of 5 attempts and
    /// `adaptive` has no client-side rate limiter here (both documented in `docs/`).
    package enum Mode: String, Sendable, Equatable {
        case standard, legacy, adaptive
    }

    /// The mode.
    package var mode: Mode
    /// The most attempts, the first included.
    package var maxAttempts: Int
    /// The first wait's upper bound (botocore's: 1 s).
    package var base: Duration
    /// The longest wait (botocore's: 20 s).
    package var cap: Duration

    /// A policy; `maxAttempts` defaults to the mode's (3, or 5 for `legacy`).
    package init(mode: Mode = .standard, maxAttempts: Int? = nil, base: Duration = .seconds(1), cap: Duration = .seconds(20)) {
        self.mode = mode
        self.maxAttempts = max(1, maxAttempts ?? (mode == .legacy ? 5 : 3))
        self.base = base
        self.cap = cap
    }

    /// 3 attempts, botocore's waits.
    package static let standard = AWSRetryPolicy()

    /// The policy botocore would use: `AWS_RETRY_MODE` / `AWS_MAX_ATTEMPTS` from `environment`,
    /// else `retry_mode` / `max_attempts` from the profile's `settings`.
    /// - Throws: ``AWSCallError`` (``AWSCallError/Kind/invalidSetting``) naming the variable or
    ///   key whose value is not a mode or not a whole number of at least 1.
    package static func resolve(environment: [String: String], profile settings: [String: String] = [:]) throws(AWSCallError) -> AWSRetryPolicy {
        func setting(_ variable: String, _ key: String) -> (source: String, value: String)? {
            if let value = environment[variable], !value.isEmpty { return (variable, value) }
            return settings[key].map { ("config key \(key)", $0) }
        }
        var mode = Mode.standard
        if let (source, value) = setting("AWS_RETRY_MODE", "retry_mode") {
            guard let parsed = Mode(rawValue: value.trimmedWhitespace) else {
                throw AWSCallError(.invalidSetting, service: "aws", operation: "", message: "\(source) is '\(value)', not legacy, standard or adaptive")
            }
            mode = parsed
        }
        var attempts: Int?
        if let (source, value) = setting("AWS_MAX_ATTEMPTS", "max_attempts") {
            guard let parsed = Int(value.trimmedWhitespace), parsed >= 1 else {
                throw AWSCallError(.invalidSetting, service: "aws", operation: "", message: "\(source) is '\(value)', not a whole number of at least 1")
            }
            attempts = parsed
        }
        return AWSRetryPolicy(mode: mode, maxAttempts: attempts)
    }

    /// botocore's throttling error codes.
    package static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "ProvisionedThroughputExceededException", "TransactionInProgressException", "RequestLimitExceeded",
        "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown", "PriorRequestNotComplete",
        "EC2ThrottledException",
    ]
    static let transientCodes: Set<String> = ["RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"]

    /// True when an answer with `status` and error `code` is worth another attempt.
    package static func isRetryable(status: Int, code: String?) -> Bool {
        if [500, 502, 503, 504].contains(status) { return true }
        guard let code else { return false }
        return transientCodes.contains(code) || throttlingCodes.contains(code)
    }

    /// The wait after `failures` failed attempts (1 for the first), for `random` in 0...1.
    package func delay(after failures: Int, random: Double = .random(in: 0...1)) -> Duration {
        min(cap, base * (1 << min(max(failures - 1, 0), 30))) * min(max(random, 0), 1)
    }
}

/// The retry quota one client's calls share (botocore's `RetryQuota`: 500 to start).
package final class RetryQuota: Sendable {
    private let available = Mutex(500)
    static let capacity = 500
    /// What a retry takes.
    package static let retryCost = 5
    /// What a retry after a timeout takes.
    package static let timeoutRetryCost = 10

    /// A full quota.
    package init() {}

    /// Takes `amount` for a retry; false when the quota is spent.
    package func acquire(_ amount: Int) -> Bool {
        available.withLock { left in
            guard amount <= left else { return false }
            left -= amount
            return true
        }
    }

    /// Gives `amount` back, up to the capacity.
    package func release(_ amount: Int) { available.withLock { $0 = min(Self.capacity, $0 + amount) } }

    package var remaining: Int { available.withLock { $0 } }
}

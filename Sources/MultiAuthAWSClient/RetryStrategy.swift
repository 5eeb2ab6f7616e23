public import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP

/// How a failed HTTP call is tried again: the one strategy of the AWS client and of
/// `AuthorizedHTTPClient`, botocore's standard retry mode by default.
///
/// - **What is retried**: an answer whose status is in ``retryableStatuses`` (500, 502, 503,
///   504), or whose AWS error code is transient (`RequestTimeout`, `RequestTimeoutException`,
///   `PriorRequestNotComplete`) or a throttling code (``throttlingCodes``); and a transport
///   failure that is transient (no connection, a timeout, a reset).
/// - **Idempotency** (RFC 9110 §9.2.2): a request whose method is not idempotent (POST,
///   PATCH) that may have reached the server (a timeout, a reset) is sent again only with
///   ``retriesNonIdempotent``. One that never left (no connection), or that the server
///   answered it did not take, is.
/// - **Waits**: ``backoff``, full jitter (a random fraction of 1 s doubling up to 20 s), for at
///   most ``maxAttempts`` attempts; no wait runs past the command's deadline.
/// - **Quota**: one client's calls share botocore's retry quota: 500 to start, 5 a retry (10
///   after a timeout), and a success gives back its retry's cost, or 1.
/// - **Clock skew**: a signed request refused for its signing time is signed again once, for
///   the time the server's `Date` gives (``SigningClock``); this is not counted as a retry.
public struct RetryStrategy: Sendable, Equatable {
    /// `retry_mode`'s three values; `legacy` differs only in its default of 5 attempts, and
    /// `adaptive` has no client-side rate limiter here.
    public enum Mode: String, Sendable, Equatable {
        /// botocore's standard mode (3 attempts).
        case standard
        /// botocore's legacy mode: 5 attempts.
        case legacy
        /// botocore's adaptive mode, without its rate limiter.
        case adaptive
    }

    /// The mode.
    public var mode: Mode
    /// The waits between attempts and the most attempts.
    public var backoff: Backoff
    /// The statuses tried again whatever the error code.
    public var retryableStatuses: Set<Int>
    /// Whether a POST or PATCH is sent again after it may have reached the server.
    public var retriesNonIdempotent: Bool

    /// A strategy. `maxAttempts` defaults to the mode's (3, or 5 for `legacy`).
    public init(
        mode: Mode = .standard, maxAttempts: Int? = nil, base: Duration = .seconds(1), cap: Duration = .seconds(20),
        retryableStatuses: Set<Int> = [500, 502, 503, 504], retriesNonIdempotent: Bool = false
    ) {
        self.mode = mode
        self.backoff = Backoff(base: base, cap: cap, maxAttempts: maxAttempts ?? (mode == .legacy ? 5 : 3), jitter: .full)
        self.retryableStatuses = retryableStatuses
        self.retriesNonIdempotent = retriesNonIdempotent
    }

    /// botocore's standard mode, as AWS calls use it: 3 attempts, and every method retried
    /// (AWS operations are made to be repeated; botocore retries every one).
    public static let standard = RetryStrategy(retriesNonIdempotent: true)

    /// botocore's standard mode as a request client uses it (`AuthorizedHTTPClient`'s
    /// default): a bare 429 is retried too (the throttle of API Gateway and most HTTP APIs,
    /// RFC 6585), and a POST or PATCH that may have run is not sent again.
    public static let httpStandard = RetryStrategy(retryableStatuses: [429, 500, 502, 503, 504])

    /// One attempt, no retry.
    public static let once = RetryStrategy(maxAttempts: 1)

    /// The most attempts, the first included.
    public var maxAttempts: Int { backoff.maxAttempts }

    /// The strategy botocore would use: `AWS_RETRY_MODE` / `AWS_MAX_ATTEMPTS` from
    /// `environment`, else `retry_mode` / `max_attempts` from the profile's `settings`, every
    /// method retried as in ``standard``.
    /// - Throws: ``AWSCallError`` (`AWSClient.invalidSetting`) naming the variable or key whose
    ///   value is not a mode or not a whole number of at least 1.
    package static func resolve(environment: [String: String], profile settings: [String: String] = [:]) throws(AWSCallError) -> RetryStrategy {
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
        return RetryStrategy(mode: mode, maxAttempts: attempts, retriesNonIdempotent: true)
    }

    /// botocore's throttling error codes.
    public static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "ProvisionedThroughputExceededException", "TransactionInProgressException", "RequestLimitExceeded",
        "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown", "PriorRequestNotComplete",
        "EC2ThrottledException",
    ]
    /// botocore's transient error codes.
    public static let transientCodes: Set<String> = ["RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"]

    /// True when an answer with `status` and AWS error `code` is worth another attempt.
    public func isRetryable(status: Int, code: String?) -> Bool {
        if retryableStatuses.contains(status) { return true }
        guard status >= 400, let code else { return false }
        return Self.transientCodes.contains(code) || Self.throttlingCodes.contains(code)
    }

    /// True when a request with `method` that failed with `error` may be sent again.
    public func isRetryable(_ error: HTTPTransportError, method: HTTPRequest.Method) -> Bool {
        guard error.isTransient else { return false }
        let mayHaveRun = error.code != "HTTPTransport.connectionFailed"
        return !mayHaveRun || retriesNonIdempotent || Self.idempotentMethods.contains(method)
    }

    /// The methods RFC 9110 §9.2.2 calls idempotent.
    static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]

    /// The wait after `failures` failed attempts (1 for the first), for `random` in 0...1.
    public func delay(after failures: Int, random: Double = .random(in: 0...1)) -> Duration {
        backoff.delay(after: failures, random: random)
    }
}

import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
import MultiAuthHTTP
import Testing

/// The rules of the one retry strategy, each stated once, on `RetryAttempts` (what both HTTP
/// clients drive their loops with) and with no sender. Expected values are botocore's
/// standard mode (`botocore/retries/standard.py`, `quota.py`) and RFC 9110 §9.2.2, by hand.
@Suite struct RetryStrategyTests {
    static func answer(_ status: Int, _ body: String = "", headers: HTTPFields = [:]) -> ReceivedResponse {
        ReceivedResponse(head: HTTPResponse(status: .init(code: status), headerFields: headers), body: Array(body.utf8))
    }

    static func attempts(
        _ strategy: RetryStrategy = .standard, method: HTTPRequest.Method = .get, quota: RetryQuota = RetryQuota(),
        deadline: ContinuousClock.Instant? = nil, correctsSkew: Bool = true
    ) -> RetryAttempts {
        var attempts = RetryAttempts(
            strategy, quota: quota, clock: SigningClock(clock: TimeSource { 1_700_000_000 }), method: method, deadline: deadline,
            correctsSkew: correctsSkew)
        attempts.begin()
        return attempts
    }

    static func isRetry(_ next: RetryAttempts.Next) -> Bool { if case .retry = next { true } else { false } }

    @Test(arguments: [500, 502, 503, 504])
    func botocoresServerErrorsAreRetried(status: Int) {
        var attempts = Self.attempts()
        #expect(Self.isRetry(attempts.next(after: Self.answer(status))))
    }

    @Test(arguments: [400, 403, 404, 429, 501, 505])
    func otherStatusesWithoutACodeAreNot(status: Int) {
        var attempts = Self.attempts()
        #expect(attempts.next(after: Self.answer(status)) == .finish)
    }

    /// A request client's default adds the bare 429 (RFC 6585), nothing else.
    @Test func aRequestClientRetriesABare429() {
        #expect(RetryStrategy.httpStandard.retryableStatuses == [429, 500, 502, 503, 504])
        var attempts = Self.attempts(.httpStandard)
        #expect(Self.isRetry(attempts.next(after: Self.answer(429))))
    }

    @Test(arguments: ["ThrottlingException", "Throttling", "SlowDown", "RequestLimitExceeded", "RequestTimeout", "PriorRequestNotComplete"])
    func throttlingAndTransientCodesAreRetried(code: String) {
        var attempts = Self.attempts()
        #expect(Self.isRetry(attempts.next(after: Self.answer(400, #"{"__type":"\#(code)","message":"m"}"#))))
    }

    @Test func otherCodesAreNot() {
        var attempts = Self.attempts()
        #expect(attempts.next(after: Self.answer(400, #"{"__type":"AccessDeniedException","message":"no"}"#)) == .finish)
        #expect(attempts.next(after: Self.answer(403, #"{"__type":"ExpiredTokenException","message":"old"}"#)) == .finish)
    }

    /// RFC 9110 §9.2.2: a POST that timed out or was reset may have run; one whose connection
    /// was never made did not.
    @Test func aRequestThatMayHaveRunIsRepeatedOnlyWhenIdempotentOrOptedIn() {
        let timedOut = HTTPTransportError.timedOut(host: "h")
        let reset = HTTPTransportError.connectionReset(host: "h", reason: "reset")
        let refused = HTTPTransportError.connectionFailed(host: "h", reason: "refused")
        let plain = RetryStrategy(retriesNonIdempotent: false)
        for method in [HTTPRequest.Method.post, .patch] {
            for error in [timedOut, reset] {
                var attempts = Self.attempts(plain, method: method)
                #expect(attempts.next(after: error) == .finish, "\(method) \(error)")
                var optedIn = Self.attempts(RetryStrategy(retriesNonIdempotent: true), method: method)
                #expect(Self.isRetry(optedIn.next(after: error)))
            }
            var attempts = Self.attempts(plain, method: method)
            #expect(Self.isRetry(attempts.next(after: refused)))
        }
        for method in [HTTPRequest.Method.get, .head, .options, .put, .delete] {
            var attempts = Self.attempts(plain, method: method)
            #expect(Self.isRetry(attempts.next(after: timedOut)), "\(method)")
        }
        #expect(RetryStrategy.standard.retriesNonIdempotent, "AWS operations are made to be repeated")
        #expect(!RetryStrategy.httpStandard.retriesNonIdempotent)
    }

    @Test func aFailureThatIsNotTransientIsNotRetried() {
        for error in [HTTPTransportError.tlsFailure(host: "h", reason: "bad certificate"), .cancelled] {
            var attempts = Self.attempts()
            #expect(attempts.next(after: error) == .finish, "\(error)")
        }
    }

    @Test func aBodyThatCannotBeSentAgainEndsTheCall() {
        var attempts = Self.attempts()
        #expect(attempts.next(after: Self.answer(503), canRepeat: false) == .finish)
        #expect(attempts.next(after: HTTPTransportError.connectionFailed(host: "h", reason: "refused"), canRepeat: false) == .finish)
    }

    /// Full jitter: a random fraction of min(1 s × 2^(n-1), 20 s).
    @Test func waitsAreARandomFractionOfADoublingStepCappedAtTwentySeconds() {
        let strategy = RetryStrategy.standard
        #expect(strategy.delay(after: 1, random: 1) == .seconds(1))
        #expect(strategy.delay(after: 3, random: 1) == .seconds(4))
        #expect(strategy.delay(after: 3, random: 0.5) == .seconds(2))
        #expect(strategy.delay(after: 9, random: 1) == .seconds(20))
        #expect(strategy.delay(after: 2, random: 0) == .zero)
    }

    @Test func attemptsStopAtTheMostAllowed() {
        var attempts = Self.attempts(RetryStrategy(maxAttempts: 2))
        #expect(Self.isRetry(attempts.next(after: Self.answer(503))))
        attempts.begin()
        #expect(attempts.next(after: Self.answer(503)) == .finish)
        #expect(RetryStrategy(mode: .legacy).maxAttempts == 5 && RetryStrategy.standard.maxAttempts == 3)
    }

    /// A retry whose wait would end past the deadline is not made (here the deadline has come).
    @Test func noWaitRunsPastTheDeadline() {
        var attempts = Self.attempts(deadline: .now)
        #expect(attempts.next(after: Self.answer(503)) == .finish)
    }

    /// botocore's quota: 500, 5 a retry, 10 after a timeout; a success gives back its retry's
    /// cost, or 1.
    @Test func theQuotaIsSpentByRetriesAndRefilledBySuccesses() {
        let quota = RetryQuota()
        for _ in 1...100 {
            var attempts = Self.attempts(quota: quota)
            #expect(Self.isRetry(attempts.next(after: Self.answer(503))))
        }
        var spent = Self.attempts(quota: quota)
        #expect(spent.next(after: Self.answer(503)) == .finish && quota.remaining == 0)
        var succeeded = Self.attempts(quota: quota)
        #expect(succeeded.next(after: Self.answer(200)) == .finish && quota.remaining == 1)

        let timeouts = RetryQuota()
        var timedOut = Self.attempts(quota: timeouts)
        #expect(Self.isRetry(timedOut.next(after: HTTPTransportError.timedOut(host: "h"))) && timeouts.remaining == 490)
        timedOut.begin()
        #expect(timedOut.next(after: Self.answer(200)) == .finish && timeouts.remaining == 500, "the retry's 10 comes back")
    }

    /// A signing-time refusal with the server's Date: signed again once, not counted as a retry.
    @Test func aSigningTimeRefusalIsSignedAgainOnce() {
        let skew = Self.answer(
            400, #"{"__type":"InvalidSignatureException","message":"Signature expired: 20231114T221320Z is now earlier than 20231114T230820Z"}"#,
            headers: [.date: "Tue, 14 Nov 2023 23:13:20 GMT"])
        let quota = RetryQuota()
        var attempts = Self.attempts(quota: quota)
        #expect(attempts.next(after: skew) == .signAgain && quota.remaining == 500)
        attempts.begin()
        #expect(attempts.next(after: skew) == .finish, "a second refusal is the answer")
        var unsigned = Self.attempts(correctsSkew: false)
        #expect(unsigned.next(after: skew) == .finish)
    }

    @Test func theEnvironmentWinsOverTheProfile() throws {
        let retry = try RetryStrategy.resolve(environment: ["AWS_MAX_ATTEMPTS": "5"], profile: ["max_attempts": "2"])
        #expect(retry.maxAttempts == 5 && retry.mode == .standard && retry.retriesNonIdempotent)
        #expect(try RetryStrategy.resolve(environment: [:], profile: ["max_attempts": "2"]).maxAttempts == 2)
        #expect(try RetryStrategy.resolve(environment: ["AWS_RETRY_MODE": "legacy"]).maxAttempts == 5)
    }

    @Test(arguments: [("AWS_MAX_ATTEMPTS", "0"), ("AWS_MAX_ATTEMPTS", "three"), ("AWS_RETRY_MODE", "fast")])
    func aRetrySettingThatIsNotOneIsNamed(variable: String, value: String) throws {
        let error = #expect(throws: AWSCallError.self) { try RetryStrategy.resolve(environment: [variable: value]) }
        #expect(error?.code == "AWSClient.invalidSetting" && error.map { "\($0)".contains(variable) && "\($0)".contains("'\(value)'") } == true)
    }
}

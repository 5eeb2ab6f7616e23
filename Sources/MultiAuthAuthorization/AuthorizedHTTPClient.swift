public import HTTPTypes
public import Logging
public import MultiAuthAWSClient
public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends requests through an authorizer, with retries and clock-skew correction.
///
/// Retries: connection errors, 5xx, 429 and throttling error codes, waiting as `retry`
/// says (`Backoff`: exponential with jitter, 3 attempts by default). As the AWS client does,
/// a client's calls share botocore's retry quota (500; a retry takes 5, or 10 after a
/// timeout; a success gives 1 or its retry's cost back), so a failing service is not retried
/// into an outage, and no wait runs past the command's deadline (`Deadline`). Clock skew: when the server
/// rejects the signing time (RequestTimeTooSkewed, RequestExpired, RequestInTheFuture,
/// InvalidSignatureException "Signature expired"/"not yet current"), the offset is taken
/// from its `Date` header, the request is authorized again, and the offset is kept.
/// The authorizer runs on every attempt, so a file body is re-read (and an `aws-chunked`
/// upload re-signed) from the start; a body that cannot be replayed is sent at most once.
/// A request whose method is not idempotent (RFC 9110 §9.2.2: POST, PATCH) is sent again
/// after a timeout or a reset only when `retriesNonIdempotent` says so: it may have run
/// already (a GraphQL mutation, say). It is still sent again when the connection could not
/// be made, or when the server answered that it did not take it (5xx, 429, throttling).
public final class AuthorizedHTTPClient: Sendable {
    private let transport: any HTTPSender
    /// The authorizer every request goes through.
    public let authorizer: any RequestAuthorizer
    private let retry: Backoff
    private let retriesNonIdempotent: Bool
    private let quota = RetryQuota()
    private let logger: Logger
    /// The time requests are signed for, corrected when a server rejects it.
    public let clock: SigningClock

    /// Creates a client. `clock` is the local time signatures start from; `logger` gets a
    /// debug line for every retry and re-signing, with its reason. With
    /// `retriesNonIdempotent`, a POST or PATCH is sent again after a timeout or a reset too.
    public init(
        transport: any HTTPSender, authorizer: any RequestAuthorizer, retry: Backoff = Backoff(),
        clock: TimeSource = .system, logger: Logger = .disabled, retriesNonIdempotent: Bool = false
    ) {
        self.transport = transport
        self.authorizer = authorizer
        self.retry = retry
        self.retriesNonIdempotent = retriesNonIdempotent
        self.clock = SigningClock(clock: clock, logger: logger)
        self.logger = logger
    }

    /// The clock offset learned from the server, in seconds (server minus local).
    public var clockOffset: Duration { clock.offset }

    /// Authorizes and sends `request` with `body`; returns the response and what was sent.
    /// A successful body goes to `responseBody` as it arrives; error bodies are kept in
    /// memory (they decide retries and clock-skew corrections).
    public func send(
        _ request: HTTPRequest, body: OutgoingBody = .empty, responseBody: ResponseDestination = .bounded
    ) async throws(RequestError) -> (response: ReceivedResponse, sent: AuthorizedRequest) {
        var correctedSkew = false
        var attempt = 0
        var lastCost: Int?
        while true {
            attempt += 1
            let date = clock.signingDate()
            let authorized: AuthorizedRequest
            do { authorized = try await authorizer.authorize(request, body: body, at: date) } catch { throw .authorization(error) }
            let outcome: Result<ReceivedResponse, HTTPTransportError>
            do { outcome = .success(try await transport.send(authorized.request, body: authorized.body, responseBody: responseBody)) } catch {
                outcome = .failure(error)
            }
            let canRepeat = !body.isConsumed && !authorized.body.isConsumed
            switch outcome {
            case .success(let response):
                if !correctedSkew, canRepeat, clock.learn(from: response) {
                    correctedSkew = true
                    continue
                }
                if canRepeat, ServerErrors.isRetryable(response), try await retried(after: attempt, cost: RetryQuota.retryCost) {
                    logger.debug("retrying", metadata: ["attempt": "\(attempt)", "reason": "HTTP \(response.status) \(ServerErrors.code(response) ?? "")"])
                    lastCost = RetryQuota.retryCost
                    continue
                }
                if response.status < 300 { quota.release(lastCost ?? 1) }
                return (response, authorized)
            case .failure(let error):
                let cost = error.code == "HTTPTransport.timedOut" ? RetryQuota.timeoutRetryCost : RetryQuota.retryCost
                let mayHaveRun = error.code != "HTTPTransport.connectionFailed"
                let repeatable = retriesNonIdempotent || !mayHaveRun || Self.idempotent.contains(request.method)
                if canRepeat, repeatable, error.isTransient, try await retried(after: attempt, cost: cost) {
                    logger.debug("retrying", metadata: ["attempt": "\(attempt)", "reason": "\(error)"])
                    lastCost = cost
                    continue
                }
                throw .transport(error)
            }
        }
    }

    /// The methods RFC 9110 §9.2.2 calls idempotent.
    private static let idempotent: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]

    /// Waits before another attempt when one is allowed: attempts left, `cost` taken from the
    /// quota, and the wait ending before the deadline. False when no retry may follow.
    private func retried(after failures: Int, cost: Int) async throws(RequestError) -> Bool {
        let wait = retry.delay(after: failures)
        guard retry.allowsRetry(after: failures), Deadline.current.map({ .now + wait < $0 }) ?? true, quota.acquire(cost) else {
            return false
        }
        do { try await clock.source.sleep(for: wait) } catch { throw .transport(.cancelled) }
        return true
    }
}

/// Why a call failed before a response came back.
public struct RequestError: CodedError, Sendable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension RequestError {
    public static func authorization(_ value: AuthorizationError) -> RequestError {
        RequestError(.authorization(value))
    }
    public static func transport(_ value: HTTPTransportError) -> RequestError { RequestError(.transport(value)) }
}

extension RequestError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``RequestError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case authorization(AuthorizationError)
        case transport(HTTPTransportError)

        package var description: String {
            switch self {
            case .authorization(let error): error.description
            case .transport(let error): error.description
            }
        }
    }
}

extension RequestError.Kind {
    /// The underlying error's code.
    package var code: ErrorCode {
        switch self {
        case .authorization(let error): error.code
        case .transport(let error): error.code
        }
    }
}

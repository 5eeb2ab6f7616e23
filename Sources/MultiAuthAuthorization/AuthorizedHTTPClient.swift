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
/// Retries follow `retry` (``RetryStrategy/httpStandard`` by default: botocore's standard
/// mode, a bare 429 retried too, a POST or PATCH that may have run not sent again), and a
/// client's calls share botocore's retry quota, so a failing service is not retried into an
/// outage; no wait runs past the command's deadline (`Deadline`). Clock skew: when the server
/// rejects the signing time, the offset is taken from its `Date` header, the request is
/// authorized again, and the offset is kept (``SigningClock``). The authorizer runs on every
/// attempt, so a file body is re-read (and an `aws-chunked` upload re-signed) from the start;
/// a body that cannot be replayed is sent at most once.
public final class AuthorizedHTTPClient: Sendable {
    private let transport: any HTTPSender
    /// The authorizer every request goes through.
    public let authorizer: any RequestAuthorizer
    /// How failed calls are tried again.
    public let retry: RetryStrategy
    private let quota = RetryQuota()
    private let logger: Logger
    /// The time requests are signed for, corrected when a server rejects it.
    public let clock: SigningClock

    /// Creates a client. `clock` is the local time signatures start from; `logger` gets a
    /// debug line for every retry and re-signing, with its reason.
    public init(
        transport: any HTTPSender, authorizer: any RequestAuthorizer, retry: RetryStrategy = .httpStandard,
        clock: TimeSource = .system, logger: Logger = .disabled
    ) {
        self.transport = transport
        self.authorizer = authorizer
        self.retry = retry
        self.clock = SigningClock(clock: clock, logger: logger)
        self.logger = logger
    }

    /// The clock offset learned from the server, in seconds (server minus local).
    public var clockOffset: Duration { clock.offset }

    /// Authorizes and sends `request` with `body`; returns the response and what was sent.
    /// A successful body goes to `responseBody` as it arrives; error bodies are kept in
    /// memory (they decide retries and clock-skew corrections).
    /// - Throws: ``RequestError``; `RequestError.cancelled`, with a `CancellationError` as its
    ///   cause, when the task is cancelled during a retry's wait or the transfer.
    public func send(
        _ request: HTTPRequest, body: OutgoingBody = .empty, responseBody: ResponseDestination = .bounded
    ) async throws(RequestError) -> (response: ReceivedResponse, sent: AuthorizedRequest) {
        var attempts = RetryAttempts(retry, quota: quota, clock: clock, method: request.method, deadline: Deadline.current, correctsSkew: true)
        while true {
            attempts.begin()
            let authorized: AuthorizedRequest
            do { authorized = try await authorizer.authorize(request, body: body, at: clock.signingDate()) } catch { throw .authorization(error) }
            let outcome: Result<ReceivedResponse, RequestError>
            let next: RetryAttempts.Next
            do {
                let response = try await transport.send(authorized.request, body: authorized.body, responseBody: responseBody)
                next = attempts.next(after: response, canRepeat: canRepeat(body, authorized))
                outcome = .success(response)
            } catch {
                next = attempts.next(after: error, canRepeat: canRepeat(body, authorized))
                outcome = .failure(error == .cancelled ? .cancelled : .transport(error))
            }
            switch next {
            case .finish: return (try outcome.get(), authorized)
            case .signAgain: continue
            case .retry(let wait):
                let reason = switch outcome {
                case .success(let response): "HTTP \(response.status) \(ServerErrors.code(response) ?? "")"
                case .failure(let error): "\(error)"
                }
                logger.debug("retrying", metadata: ["attempt": "\(attempts.count)", "reason": "\(reason)"])
                do { try await attempts.sleep(wait) } catch { throw .cancelled }
            }
        }
    }

    /// Whether the body can go again, read once the attempt was sent: a stream that cannot be
    /// replayed is consumed by sending it.
    private func canRepeat(_ body: OutgoingBody, _ authorized: AuthorizedRequest) -> Bool {
        !body.isConsumed && !authorized.body.isConsumed
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
    /// The authorizer failed.
    public static func authorization(_ value: AuthorizationError) -> RequestError {
        RequestError(.authorization(value))
    }
    /// The request could not be sent, or its answer broke off.
    public static func transport(_ value: HTTPTransportError) -> RequestError { RequestError(.transport(value)) }
    /// The task was cancelled (code `HTTPTransport.cancelled`, cause a `CancellationError`).
    public static let cancelled = RequestError(.cancelled)
}

extension RequestError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``RequestError/code``.
    package enum Kind: Sendable, CustomStringConvertible, ErrorKind {
        case authorization(AuthorizationError)
        case transport(HTTPTransportError)
        case cancelled

        package var description: String {
            switch self {
            case .authorization(let error): error.description
            case .transport(let error): error.description
            case .cancelled: "the request was cancelled"
            }
        }

        /// The underlying error's code.
        package var code: ErrorCode {
            switch self {
            case .authorization(let error): error.code
            case .transport(let error): error.code
            case .cancelled: "HTTPTransport.cancelled"
            }
        }

        package var underlying: (any Error & Sendable)? {
            switch self {
            case .authorization(let error): error
            case .transport(let error): error
            case .cancelled: CancellationError()
            }
        }
    }
}

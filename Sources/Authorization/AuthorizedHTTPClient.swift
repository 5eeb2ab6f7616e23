import HTTPTransport
import HTTPTypes
import Logging
import MultiAuthCore
import SigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends requests through an authorizer, with retries and clock-skew correction.
///
/// Retries: connection errors, 5xx, 429 and throttling error codes, waiting as `retry`
/// says (`Backoff`: exponential with jitter, 3 attempts by default). Clock skew: when the server
/// rejects the signing time (RequestTimeTooSkewed, RequestExpired, RequestInTheFuture,
/// InvalidSignatureException "Signature expired"/"not yet current"), the offset is taken
/// from its `Date` header, the request is authorized again, and the offset is kept.
/// The authorizer runs on every attempt, so a file body is re-read (and an `aws-chunked`
/// upload re-signed) from the start; a body that cannot be replayed is sent at most once.
public final class AuthorizedHTTPClient: Sendable {
    private let transport: any HTTPSender
    /// The authorizer every request goes through.
    public let authorizer: any RequestAuthorizer
    private let retry: Backoff
    private let logger: Logger
    /// The time requests are signed for, corrected when a server rejects it.
    public let clock: SigningClock

    /// Creates a client. `clock` is the local time signatures start from; `logger` gets a
    /// debug line for every retry and re-signing, with its reason.
    public init(
        transport: any HTTPSender, authorizer: any RequestAuthorizer, retry: Backoff = Backoff(),
        clock: TimeSource = .system, logger: Logger = .disabled
    ) {
        self.transport = transport
        self.authorizer = authorizer
        self.retry = retry
        self.clock = SigningClock(clock: clock, logger: logger)
        self.logger = logger
    }

    /// The clock offset learned from the server, in seconds (server minus local).
    public var clockOffset: Double { clock.offset }

    /// Authorizes and sends `request` with `body`; returns the response and what was sent.
    /// A successful body goes to `responseBody` as it arrives; error bodies are kept in
    /// memory (they decide retries and clock-skew corrections).
    public func send(
        _ request: HTTPRequest, body: OutgoingBody = .empty, responseBody: ResponseDestination = .bounded
    ) async throws(RequestError) -> (response: ReceivedResponse, sent: AuthorizedRequest) {
        var correctedSkew = false
        var attempt = 0
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
                if retry.allowsRetry(after: attempt), canRepeat, ServerErrors.isRetryable(response) {
                    logger.debug("retrying", metadata: ["attempt": "\(attempt)", "reason": "HTTP \(response.status) \(ServerErrors.code(response) ?? "")"])
                    try await backoff(after: attempt)
                    continue
                }
                return (response, authorized)
            case .failure(let error):
                if retry.allowsRetry(after: attempt), canRepeat, error.isTransient {
                    logger.debug("retrying", metadata: ["attempt": "\(attempt)", "reason": "\(error)"])
                    try await backoff(after: attempt)
                    continue
                }
                throw .transport(error)
            }
        }
    }

    private func backoff(after failures: Int) async throws(RequestError) {
        do { try await retry.wait(after: failures) } catch { throw .transport(.cancelled) }
    }
}

/// Why a call failed before a response came back.
public enum RequestError: Error, Sendable, CustomStringConvertible {
    case authorization(AuthorizationError)
    case transport(HTTPTransportError)

    public var description: String {
        switch self {
        case .authorization(let error): error.description
        case .transport(let error): error.description
        }
    }
}

/// Reading AWS error responses: the error code, retryability, and clock skew.
enum ServerErrors {
    static let throttling: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "ProvisionedThroughputExceededException", "TransactionInProgressException", "RequestLimitExceeded",
        "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown", "EC2ThrottledException",
    ]
    static let skewCodes: Set<String> = ["RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture"]

    /// The error code, read by the one AWS error decoder.
    static func code(_ response: ReceivedResponse) -> String? { AWSErrorResponse(response).code }

    static func isRetryable(_ response: ReceivedResponse) -> Bool {
        if response.status >= 500 || response.status == 429 { return true }
        guard response.status >= 400 else { return false }
        return code(response).map(throttling.contains) ?? false
    }

    /// The server-minus-local offset when the response rejects the signing time.
    static func skewOffset(_ response: ReceivedResponse, now: Double) -> Double? {
        guard response.status == 403 || response.status == 400 || response.status == 401 else { return nil }
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        let code = code(response) ?? ""
        let isSkew = skewCodes.contains(code)
            || (code == "InvalidSignatureException" && (text.contains("Signature expired") || text.contains("not yet current")))
        guard isSkew, let dateText = response.header("Date"), let serverDate = HTTPDate.parse(dateText) else { return nil }
        return serverDate.timeIntervalSince1970 - now
    }
}

/// The IMF-fixdate of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let stamp = String(format4(year)) + two(month + 1) + two(day) + "T" + two(time[0]) + two(time[1]) + two(time[2]) + "Z"
        guard let date = try? SigningDate(parsing: stamp) else { return nil }
        return Date(timeIntervalSince1970: Double(date.secondsSince1970))
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func format4(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value) }
}

extension RequestError: CodedError {
    /// The underlying error's code.
    public var code: ErrorCode {
        switch self {
        case .authorization(let error): error.code
        case .transport(let error): error.code
        }
    }
}

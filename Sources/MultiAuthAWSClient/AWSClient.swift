package import HTTPTypes
package import Logging
package import MultiAuthCore
package import MultiAuthHTTP
package import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one way MultiAuth calls an AWS service: the endpoint botocore would use, the request
/// signed with SigV4 (or sent unsigned, for the calls whose proof is in the body), botocore's
/// standard retries (``RetryStrategy``), clock-skew correction from the service's `Date`
/// (``SigningClock``), and every failure as an ``AWSCallError``.
///
/// A client is cheap to copy; copies share their retry quota and clock offset.
package struct AWSClient: Sendable {
    /// The service's endpoint prefix (`sts`, `kms`, `sso-oidc`), also its signing name.
    package let service: String
    /// The region calls are signed for.
    package let region: String
    /// Where calls go.
    package let endpoint: ServiceEndpoint
    /// How failures are retried.
    package let retry: RetryStrategy
    /// The time calls are signed for, corrected when the service rejects it.
    package let clock: SigningClock
    /// When the command this client serves must be done: no retry waits past it (nil: the
    /// enclosing `Deadline.run`'s, if any).
    package var deadline: ContinuousClock.Instant?
    let http: any HTTPSender
    let quota: RetryQuota
    let logger: Logger

    /// A client for `service` at `endpoint`.
    /// - Throws: ``AWSCallError`` (``AWSCallError/Kind/invalidSetting``) when `region` is not a
    ///   region name: it is signed into every call's scope, whatever the endpoint.
    package init(
        service: String, region: String, endpoint: ServiceEndpoint, http: any HTTPSender, retry: RetryStrategy = .standard,
        clock: SigningClock = SigningClock(), logger: Logger = .disabled
    ) throws(AWSCallError) {
        do throws(InvalidRegionError) { try RegionName.validated(region, source: "the region for \(service)") } catch {
            throw AWSCallError(.invalidSetting, service: service, operation: "", message: error.description, underlying: error)
        }
        self.service = service
        self.region = region
        self.endpoint = endpoint
        self.http = http
        self.retry = retry
        self.clock = clock
        self.quota = RetryQuota()
        self.logger = logger
    }

    /// A client for `service` in `region` at the endpoint botocore resolves from `environment`
    /// (default: the process environment)
    /// and the profile's `endpoint_url` (see ``ServiceEndpoint/resolve(service:region:environment:profileEndpoint:)``),
    /// retrying as `environment` says (``RetryStrategy/resolve(environment:profile:)``).
    package init(
        service: String, region: String, environment: [String: String]? = nil, profileEndpoint: String? = nil,
        http: any HTTPSender, logger: Logger = .disabled
    ) throws(AWSCallError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let endpoint: ServiceEndpoint
        do throws(InvalidRegionError) {
            endpoint = try .resolve(service: service, region: region, environment: environment, profileEndpoint: profileEndpoint)
        } catch {
            throw AWSCallError(.invalidSetting, service: service, operation: "", message: error.description, underlying: error)
        }
        try self.init(service: service, region: region, endpoint: endpoint, http: http, retry: try .resolve(environment: environment), logger: logger)
    }

    /// Where credentials for signing come from: called once per attempt, so a refreshed
    /// session is used on a retry.
    package typealias Credentials = @Sendable () async throws -> AWSCredentials

    /// Sends `operation`, signed with what `credentials` gives (unsigned when nil), and returns
    /// the service's successful (2xx) answer.
    /// - Throws: ``AWSCallError`` once no retry is left: the service's refusal, a transport
    ///   failure, or credentials that could not be had.
    package func send(_ operation: AWSOperation, signedWith credentials: Credentials?) async throws(AWSCallError) -> ReceivedResponse {
        try await send(operation, credentials.map(Signing.keys) ?? .unsigned)
    }

    /// Signs a prepared request in a way other than SigV4 with keys: IAM Roles Anywhere's
    /// X.509 signing (``X509Signer``). Called once per attempt, with that attempt's time.
    package typealias RequestSigner = @Sendable (HTTPRequest, _ body: [UInt8], SigningDate) async throws(SigningError) -> HTTPRequest

    /// Sends `operation` signed by `signer`, as ``send(_:signedWith:)`` does.
    package func send(_ operation: AWSOperation, signedBy signer: @escaping RequestSigner) async throws(AWSCallError) -> ReceivedResponse {
        try await send(operation, .custom(signer))
    }

    private enum Signing {
        case unsigned
        case keys(Credentials)
        case custom(RequestSigner)
    }

    private func send(_ operation: AWSOperation, _ signing: Signing) async throws(AWSCallError) -> ReceivedResponse {
        // An unsigned call has no signing time to correct.
        let signed = if case .unsigned = signing { false } else { true }
        var attempts = RetryAttempts(retry, quota: quota, clock: clock, method: operation.method, deadline: deadline ?? Deadline.current, correctsSkew: signed)
        while true {
            attempts.begin()
            let request = try await prepare(operation, signing: signing, attempt: attempts.count)
            let outcome: Result<ReceivedResponse, AWSCallError>
            let next: RetryAttempts.Next
            do {
                let response = try await http.send(request, body: .bytes(operation.body))
                next = attempts.next(after: response)
                outcome = (200..<300).contains(response.status) ? .success(response) : .failure(refusal(response, operation: operation, attempts: attempts.count))
            } catch {
                next = attempts.next(after: error)
                outcome = .failure(transportFailure(error, operation: operation, attempts: attempts.count))
            }
            switch next {
            case .finish: return try outcome.get()
            case .signAgain: continue
            case .retry(let wait):
                let reason = if case .failure(let failure) = outcome { failure.serviceCode ?? failure.kind.rawValue } else { "" }
                logger.debug("retrying", metadata: ["service": "\(service)", "operation": "\(operation.name)", "attempt": "\(attempts.count)", "reason": "\(reason)"])
                do { try await attempts.sleep(wait) } catch {
                    throw AWSCallError(.cancelled, service: service, operation: operation.name, message: "cancelled", attempts: attempts.count, underlying: error)
                }
            }
        }
    }

    private func transportFailure(_ error: HTTPTransportError, operation: AWSOperation, attempts: Int) -> AWSCallError {
        if error == .cancelled {
            return AWSCallError(.cancelled, service: service, operation: operation.name, message: "cancelled", attempts: attempts, underlying: CancellationError())
        }
        return AWSCallError(.transport, service: service, operation: operation.name, message: error.description, attempts: attempts, underlying: error)
    }

    /// Sends `operation` and decodes its JSON answer as `Answer`.
    package func json<Answer: Decodable>(_ operation: AWSOperation, as type: Answer.Type, signedWith credentials: Credentials?) async throws(AWSCallError) -> Answer {
        let response = try await send(operation, signedWith: credentials)
        do { return try JSONDecoding.decode(Answer.self, from: response.body, what: "the \(operation.name) answer") } catch {
            throw AWSCallError(.malformedAnswer, service: service, operation: operation.name, message: error.description, status: response.status, underlying: error)
        }
    }

    private func prepare(_ operation: AWSOperation, signing: Signing, attempt: Int) async throws(AWSCallError) -> HTTPRequest {
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: operation.method, wireURL: url(operation.path), headerFields: HTTPFields(checking: operation.headers))
        } catch {
            throw AWSCallError(.invalidSetting, service: service, operation: operation.name, message: "\(Redaction.url(endpoint.url)) is not a usable endpoint: \(error)", underlying: error)
        }
        let credentials: Credentials
        switch signing {
        case .unsigned: return request
        case .keys(let given): credentials = given
        case .custom(let signer):
            do { return try await signer(request, operation.body, clock.signingDate()) } catch {
                throw AWSCallError(.credentials, service: service, operation: operation.name, message: "cannot sign: \(error)", attempts: attempt - 1, underlying: error)
            }
        }
        let keys: AWSCredentials
        do { keys = try await credentials() } catch {
            throw AWSCallError(.credentials, service: service, operation: operation.name, message: "\(error)", attempts: attempt - 1, underlying: error)
        }
        do {
            let signer = SigV4Signer(credentials: keys, region: region, service: service)
            return try signer.signHeaders(request, payload: .bytes(operation.body), date: clock.signingDate()).signedRequest()
        } catch {
            throw AWSCallError(.invalidSetting, service: service, operation: operation.name, message: "cannot sign: \(error)", underlying: error)
        }
    }

    private func url(_ path: String) -> String {
        guard !path.isEmpty else { return endpoint.url }
        let base = endpoint.url.hasSuffix("/") ? endpoint.url : endpoint.url + "/"
        return base + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    private func refusal(_ response: ReceivedResponse, operation: AWSOperation, attempts: Int) -> AWSCallError {
        let error = AWSErrorResponse(response)
        let requestId = response.header("x-amzn-RequestId") ?? response.header("x-amz-request-id")
            ?? XMLText.value(of: "RequestId", in: String(decoding: response.body.prefix(64 * 1024), as: UTF8.self))
        var failure = AWSCallError(
            .service, service: service, operation: operation.name, serviceCode: error.code, message: error.message ?? "",
            status: response.status, requestId: requestId, attempts: attempts)
        failure.reason = error.reason
        return failure
    }
}

import HTTPTransport
import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One call to an AWS API on the JSON 1.1 protocol (KMS, Secrets Manager, SSM): the action
/// in `X-Amz-Target`, the fields as a JSON object, signed with a provider's credentials at
/// the endpoint botocore would use.
package struct AWSJSONCall: Sendable {
    /// The service's target prefix (`TrentService`, `secretsmanager`, `AmazonSSM`).
    let targetPrefix: String
    let credentials: any CredentialsProvider
    let call: AWSServiceCall

    /// Calls to `service` (its endpoint prefix) in `region`.
    /// - Throws: ``AWSJSONCallError/invalidSetting(_:)`` for a region that is not one.
    package init(
        service: String, targetPrefix: String, region: String, credentials: any CredentialsProvider, environment: [String: String]? = nil,
        http: any HTTPSender
    ) throws(AWSJSONCallError) {
        let endpoint: ServiceEndpoint
        do throws(InvalidRegionError) {
            endpoint = try .resolve(service: service, region: region, environment: environment ?? ProcessInfo.processInfo.environment)
        } catch {
            throw .invalidSetting("\(error)")
        }
        self.targetPrefix = targetPrefix
        self.credentials = credentials
        call = AWSServiceCall(service: service, region: region, endpoint: endpoint, http: http)
    }

    /// How often a call is tried: botocore's standard retry mode (3 attempts, exponential
    /// backoff with jitter) for answers 500, 502, 503, 504 and throttling, and for a service
    /// that could not be reached.
    static let retry = Backoff(base: .milliseconds(200), cap: .seconds(20), maxAttempts: 3)
    static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "RequestLimitExceeded", "ProvisionedThroughputExceededException", "BandwidthLimitExceeded", "SlowDown",
        "PriorRequestNotComplete", "EC2ThrottledException",
    ]

    /// The service's answer to `action` with `fields`, decoded as `Answer`. A call that fails
    /// in a way worth another try is tried again (``retry``): callers make every action they
    /// send safe to repeat (an idempotency token, or a conditional write that reads back).
    package func send<Answer: Decodable>(_ action: String, _ fields: [String: JSONValue], as type: Answer.Type) async throws(AWSJSONCallError) -> Answer {
        var failures = 0
        while true {
            do { return try await sendOnce(action, fields, as: type) } catch {
                failures += 1
                guard Self.isRetryable(error), Self.retry.allowsRetry(after: failures) else { throw error }
                do { try await Self.retry.wait(after: failures) } catch { throw .unreachable("\(action) cancelled") }
            }
        }
    }

    static func isRetryable(_ error: AWSJSONCallError) -> Bool {
        switch error {
        case .unreachable: true
        case .refused(_, let code, _): ["HTTP 500", "HTTP 502", "HTTP 503", "HTTP 504", "InternalFailure", "ServiceUnavailable", "InternalServiceError"].contains(code) || throttlingCodes.contains(code)
        default: false
        }
    }

    private func sendOnce<Answer: Decodable>(_ action: String, _ fields: [String: JSONValue], as type: Answer.Type) async throws(AWSJSONCallError) -> Answer {
        let source: ExpiringCredentials
        do { source = try await credentials.credentials() } catch { throw .credentials(error) }
        let response: ReceivedResponse
        do {
            response = try await call.post(
                body: Array(JSONValue.object(fields).description.utf8),
                headers: [("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "\(targetPrefix).\(action)")],
                signWith: source.credentials)
        } catch {
            throw .unreachable("\(error)")
        }
        guard response.status == 200 else {
            let error = AWSErrorResponse(response)
            throw .refused(action: action, code: error.code ?? "HTTP \(response.status)", message: error.message ?? "")
        }
        do { return try JSONDecoding.decode(Answer.self, from: response.body, what: "\(call.service) \(action)'s answer") } catch {
            throw .malformedAnswer(error.description)
        }
    }
}

/// Why a JSON 1.1 call failed.
package enum AWSJSONCallError: Error, Sendable {
    /// A setting (the region) cannot be used.
    case invalidSetting(String)
    /// No credentials to sign the call with.
    case credentials(CredentialsError)
    /// The service could not be reached.
    case unreachable(String)
    /// The service answered with an error code.
    case refused(action: String, code: String, message: String)
    /// The answer did not hold what it should.
    case malformedAnswer(String)

    /// An empty answer (`{}`), for actions whose answer is not read.
    package struct Nothing: Decodable {}
}

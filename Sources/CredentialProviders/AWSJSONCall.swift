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

    /// The service's answer to `action` with `fields`, decoded as `Answer`.
    package func send<Answer: Decodable>(_ action: String, _ fields: [String: JSONValue], as type: Answer.Type) async throws(AWSJSONCallError) -> Answer {
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

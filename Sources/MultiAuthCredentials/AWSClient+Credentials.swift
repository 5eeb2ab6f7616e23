package import MultiAuthAWSClient
package import MultiAuthCore
package import MultiAuthHTTP
package import MultiAuthSigV4

/// The credential chain's calls (STS, SSO, Cognito Identity) go through the one AWS client;
/// here is how a chain's settings make one and how its failures read as ``CredentialsError``.
extension CredentialsError {
    /// An AWS call's failure as the chain reports it, the call kept as the cause: a refusal
    /// as `Credentials.serviceError`, a transport failure as `Credentials.transport`, a
    /// cancellation as `Credentials.cancelled`, a credentials failure as itself.
    package init(_ error: AWSCallError) {
        // The service and the operation, as people read them: "sts AssumeRole refused: …".
        let call = error.operation.isEmpty ? error.service : "\(error.service) \(error.operation)"
        switch error.kind {
        case .service:
            self.init(.serviceError(service: call, code: error.awsCode?.rawValue ?? "HTTP \(error.status ?? 0)", message: error.serviceMessage), cause: error)
        case .malformedAnswer: self.init(.serviceError(service: call, code: "MalformedResponse", message: error.serviceMessage), cause: error)
        case .transport: self.init(.transport(service: call, problem: error.serviceMessage), cause: error)
        case .cancelled: self.init(.cancelled(what: call), cause: error)
        case .credentials:
            if let signing = error.underlying as? SigningError, case .certificate(let certificate) = signing.kind {
                self = .certificate(certificate)
            } else {
                self = error.underlying as? CredentialsError ?? CredentialsError(.transport(service: call, problem: error.serviceMessage), cause: error)
            }
        case .invalidSetting:
            if let region = error.underlying as? InvalidRegionError { self = CredentialsError(region) } else {
                self.init(.invalidSetting(source: error.service, problem: error.serviceMessage), cause: error)
            }
        }
    }
}

extension AWSClient {
    /// A client for `service` in `region`: at `endpoint` when given (the region still checked),
    /// else where botocore resolves it from `environment`; retries as `environment` and the
    /// profile's `settings` say.
    package static func forChain(
        service: String, region: String, endpoint: ServiceEndpoint? = nil, environment: [String: String], profile settings: [String: String] = [:],
        http: any HTTPSender
    ) throws(CredentialsError) -> AWSClient {
        let resolved: ServiceEndpoint
        if let endpoint { resolved = endpoint } else {
            do throws(InvalidRegionError) { resolved = try .resolve(service: service, region: region, environment: environment) } catch {
                throw CredentialsError(error)
            }
        }
        do throws(AWSCallError) {
            let retry = try RetryStrategy.resolve(environment: environment, profile: settings)
            return try AWSClient(service: service, region: region, endpoint: resolved, http: http, retry: retry)
        } catch { throw CredentialsError(error) }
    }
}

extension SharedConfigFiles {
    /// A client for `service` as `profile` configures it: its endpoint (``endpoint(for:profile:region:environment:)``)
    /// and its `retry_mode` / `max_attempts`.
    package func client(
        for service: String, profile: String?, region: String, environment: [String: String], http: any HTTPSender
    ) throws(CredentialsError) -> AWSClient {
        let endpoint = try endpoint(for: service, profile: profile, region: region, environment: environment)
        let settings = profile.flatMap { profiles[$0] } ?? [:]
        return try AWSClient.forChain(service: service, region: region, endpoint: endpoint, environment: environment, profile: settings, http: http)
    }
}

/// Signing keys that are always `credentials`.
package func fixedKeys(_ credentials: AWSCredentials) -> AWSClient.Credentials { { credentials } }

extension CredentialsProvider {
    /// This provider's current keys, for signing an AWS call.
    package var signingKeys: AWSClient.Credentials { { try await self.credentials().credentials } }
}

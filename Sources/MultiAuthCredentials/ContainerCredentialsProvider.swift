import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials from the container credentials endpoint, as botocore's `ContainerProvider`
/// reads them: ECS task roles (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`, on 169.254.170.2) and
/// EKS Pod Identity or any endpoint named by `AWS_CONTAINER_CREDENTIALS_FULL_URI`.
///
/// - A full URI must be https, a loopback address, or one of the ECS/EKS link-local hosts
///   (169.254.170.2, 169.254.170.23, fd00:ec2::23); anything else is refused before a request
///   is sent.
/// - `Authorization` comes from `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read again on every
///   call: Pod Identity rotates it), else `AWS_CONTAINER_AUTHORIZATION_TOKEN`; a token with CR or
///   LF is refused.
/// - Up to three attempts, about a second apart (`retry`), as botocore makes.
public struct ContainerCredentialsProvider: CredentialsProvider {
    /// The ECS credentials host for relative URIs.
    public static let ecsHost = "169.254.170.2"
    private static let linkLocalHosts: Set<String> = ["169.254.170.2", "169.254.170.23", "fd00:ec2::23", "localhost"]

    let environment: [String: String]
    let http: any HTTPSender
    let retry: Backoff

    /// True when `environment` names a container endpoint (the provider is tried only then).
    public static func isConfigured(_ environment: [String: String]) -> Bool {
        environment["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] != nil || environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] != nil
    }

    /// Reads `environment` (default: the process environment) on every call.
    public init(environment: [String: String]? = nil, http: any HTTPSender, retry: Backoff = Backoff(base: .seconds(1), cap: .seconds(1), maxAttempts: 3)) {
        self.environment = environment ?? ProcessInfo.processInfo.environment
        self.http = http
        self.retry = retry
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        var (request, source) = try endpoint()
        request.headerFields[.accept] = "application/json"
        if let token = try authorizationToken() { request.headerFields[.authorization] = token }
        var failures = 0
        while true {
            do throws(CredentialsError) { return try await fetch(request, source: source) } catch let failure {
                failures += 1
                guard retry.allowsRetry(after: failures), failure.isWorthRetrying else { throw failure }
                do { try await retry.wait(after: failures) } catch { throw failure }  // cancelled: no more attempts
            }
        }
    }

    /// The GET of the endpoint and the variable it came from; a full URI is checked against
    /// the host rule.
    private func endpoint() throws(CredentialsError) -> (request: HTTPRequest, source: String) {
        let relative = environment["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"]
        let source = relative == nil ? "AWS_CONTAINER_CREDENTIALS_FULL_URI" : "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"
        guard let url = relative.map({ "http://\(Self.ecsHost)" + $0 }) ?? nonEmpty(environment[source]) else {
            throw .notFound("no container credentials endpoint")
        }
        guard let request = try? HTTPRequest(method: .get, wireURL: url) else {
            throw .refusedEndpoint(source: source, url: url, rule: "it is not a valid URL")
        }
        if relative != nil || request.scheme == "https" { return (request, source) }
        let host = LoopbackAddress.host(of: request.authority ?? "")
        guard request.scheme == "http", LoopbackAddress.contains(host) || Self.linkLocalHosts.contains(host) else {
            throw .refusedEndpoint(
                source: source, url: url,
                rule: "only https, a loopback address or one of 169.254.170.2, 169.254.170.23, fd00:ec2::23 is allowed")
        }
        return (request, source)
    }

    /// The token file wins over the variable; the file is read as it is, as botocore reads it.
    private func authorizationToken() throws(CredentialsError) -> String? {
        var token: String?
        var source = "AWS_CONTAINER_AUTHORIZATION_TOKEN"
        if let path = environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] {
            switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.secretLimit) {
            case .success(let data): token = String(decoding: data, as: UTF8.self)
            case .failure(let failure):
                guard case .tooLarge = failure.kind else { throw .notFound("cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(path)") }
                throw .invalidSetting(source: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(path)", problem: failure.description)
            }
            source = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(path)"
        } else {
            token = environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"]
        }
        try checkWireSafe([("the authorization token", token)], source: source)
        return token
    }

    private struct Answer: Decodable {
        let AccessKeyId: String
        let SecretAccessKey: String
        let Token: String?
        let Expiration: String?
    }

    private func fetch(_ request: HTTPRequest, source: String) async throws(CredentialsError) -> ExpiringCredentials {
        let service = "container endpoint (\(source))"
        let response: ReceivedResponse
        do { response = try await http.send(request) } catch { throw .transport(service: service, problem: error.description) }
        // The answer's body is never quoted: a credentials endpoint's answer may carry secrets.
        guard response.status == 200 else {
            throw .serviceError(service: service, code: "HTTP \(response.status)", message: "the endpoint did not hand out credentials")
        }
        let answer: Answer
        do { answer = try JSONDecoding.decode(Answer.self, from: response.body, what: "the answer") } catch {
            throw .serviceError(service: service, code: "MalformedResponse", message: error.description)
        }
        try checkWireSafe([("AccessKeyId", answer.AccessKeyId), ("Token", answer.Token)], source: service)
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: answer.AccessKeyId, secretAccessKey: answer.SecretAccessKey, sessionToken: answer.Token),
            expiration: answer.Expiration.flatMap(ISO8601.parse), source: service)
    }
}

extension CredentialsError {
    /// Transport failures and server errors pass; a refusal or a malformed answer does not.
    var isWorthRetrying: Bool {
        switch self.kind {
        case .transport: true
        case .serviceError(_, let code, _): code.hasPrefix("HTTP 5")
        default: false
        }
    }
}

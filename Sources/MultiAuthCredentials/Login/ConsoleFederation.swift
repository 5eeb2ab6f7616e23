import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
public import MultiAuthHTTP
public import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The AWS console in a browser for a set of credentials, through the sign-in service's
/// federation endpoint (`/federation`), as AWS documents a custom identity broker: temporary
/// credentials are traded for a sign-in token (`getSigninToken`), and the login URL carries
/// the token to the console. Long-term IAM user keys first become a federated user's session
/// (STS `GetFederationToken`), since the endpoint takes only temporary credentials.
///
/// The sign-in token signs a browser in as the session for 15 minutes: the login URL is a
/// secret, given to the caller and never logged.
public struct ConsoleFederation: Sendable {
    /// The policy a federated user's session gets unless another is given: everything, which
    /// a session narrows to what the IAM user itself may do (a federated session's permissions
    /// are the intersection of the user's and this policy's).
    public static let everythingTheUserMay = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#

    let signin: AWSClient
    let sts: STSClient
    let region: String

    /// The federation endpoint of `region`'s sign-in service (or `AWS_ENDPOINT_URL_SIGNIN`),
    /// and STS (`AWS_ENDPOINT_URL_STS`) for long-term keys.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a malformed region or endpoint.
    public init(region: String, environment: [String: String]? = nil, http: any HTTPSender) throws(CredentialsError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        signin = try .forChain(service: "signin", region: region, environment: environment, http: http)
        sts = try STSClient(region: region, environment: environment, http: http)
        self.region = region
    }

    /// A sign-in token for `credentials`. Temporary credentials (a role's session, SSO's, a
    /// login session's) are used as they are, for a console session of `duration` seconds
    /// (900 to 43200; the endpoint's default, 12 hours, when nil). Long-term keys become a
    /// session of the federated user `federatedName` under `policy` first, lasting `duration`
    /// seconds (900 to 129600; 43200 when nil); the endpoint takes no duration for those.
    /// - Throws: ``CredentialsError`` when STS or the endpoint refuses, or the answer holds no token.
    public func signinToken(
        for credentials: AWSCredentials, duration: Int? = nil, federatedName: String = "multiauth", policy: String = everythingTheUserMay
    ) async throws(CredentialsError) -> String {
        var session = credentials
        var parameters: [(String, String)] = [("Action", "getSigninToken")]
        if credentials.sessionToken == nil {
            session = try await sts.getFederationToken(name: federatedName, policy: policy, durationSeconds: duration, source: credentials).credentials
        } else if let duration {
            parameters.append(("SessionDuration", String(duration)))
        }
        let document = JSONValue.object([
            "sessionId": .string(session.accessKeyId), "sessionKey": .string(session.secretAccessKey),
            "sessionToken": .string(session.sessionToken ?? ""),
        ])
        parameters.append(("Session", document.description))
        let query = String(decoding: FormURLEncoding.encode(parameters), as: UTF8.self)
        struct Answer: Decodable { let SigninToken: String }
        do {
            let answer = try await signin.json(AWSOperation(name: "getSigninToken", method: .get, path: "/federation?" + query), as: Answer.self, signedWith: nil)
            guard !answer.SigninToken.isEmpty, WireText.isSafe(answer.SigninToken) else {
                throw CredentialsError.serviceError(service: "signin getSigninToken", code: "MalformedResponse", message: "the answer holds no usable sign-in token")
            }
            return answer.SigninToken
        } catch let error as AWSCallError {
            throw CredentialsError(error)
        } catch {
            throw error as? CredentialsError ?? .serviceError(service: "signin getSigninToken", code: "MalformedResponse", message: "\(error)")
        }
    }

    /// The URL that signs a browser in with `token` and opens `destination` (by default the
    /// console home of the region's partition), naming `issuer` as the page a user returns
    /// to when the session ends.
    public func loginURL(token: String, destination: String? = nil, issuer: String? = nil) -> String {
        let base = signin.endpoint.url.hasSuffix("/") ? String(signin.endpoint.url.dropLast()) : signin.endpoint.url
        var parameters = [("Action", "login")]
        if let issuer { parameters.append(("Issuer", issuer)) }
        parameters += [("Destination", destination ?? Self.consoleHome(region: region)), ("SigninToken", token)]
        return base + "/federation?" + String(decoding: FormURLEncoding.encode(parameters), as: UTF8.self)
    }

    /// The console home of `region`'s partition: aws, aws-cn (`cn-…`) or aws-us-gov (`us-gov-…`).
    public static func consoleHome(region: String) -> String {
        let host =
            region.hasPrefix("cn-") ? "console.amazonaws.cn" : region.hasPrefix("us-gov-") ? "console.amazonaws-us-gov.com" : "console.aws.amazon.com"
        return "https://\(host)/console/home?region=\(region)"
    }
}

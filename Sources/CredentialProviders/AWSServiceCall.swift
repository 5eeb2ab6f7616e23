import HTTPTransport
import HTTPTypes
import MultiAuthCore
import SigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an AWS service is reached: its real endpoint, or `AWS_ENDPOINT_URL_<SERVICE>` /
/// `AWS_ENDPOINT_URL` (as the AWS SDKs read them), so tests can point at a local peer.
public struct ServiceEndpoint: Sendable {
    /// The endpoint URL.
    public let url: String

    /// The endpoint for `service` (`sts`, `cognito-identity`, ...) in `region`, in botocore's
    /// order: `AWS_ENDPOINT_URL_<SERVICE ID>`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`
    /// (`profileEndpoint`), then the service's regional endpoint (`regionalHost`, else
    /// `<service>.<region>.amazonaws.com`).
    public static func resolve(
        service: String, region: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        profileEndpoint: String? = nil, regionalHost: String? = nil
    ) -> ServiceEndpoint {
        let variable = "AWS_ENDPOINT_URL_" + serviceID(service)
        if let url = nonEmpty(environment[variable]) ?? nonEmpty(environment["AWS_ENDPOINT_URL"]) ?? nonEmpty(profileEndpoint) {
            return ServiceEndpoint(url: url)
        }
        return ServiceEndpoint(url: "https://\(regionalHost ?? "\(service).\(region).amazonaws.com")/")
    }

    /// The variable suffix botocore derives from the service ID (`SSO OIDC` → `SSO_OIDC`,
    /// `Cognito Identity Provider` → `COGNITO_IDENTITY_PROVIDER`), for the services MultiAuth
    /// calls, named by their endpoint prefix.
    static func serviceID(_ service: String) -> String {
        switch service {
        case "cognito-idp": "COGNITO_IDENTITY_PROVIDER"
        default: service.uppercased().replacing("-", with: "_")
        }
    }

    /// An explicit endpoint.
    public init(url: String) { self.url = url }
}

/// One call to an AWS API: build, optionally SigV4-sign, send, and turn errors into
/// ``CredentialsError`` values that name the service.
struct AWSServiceCall {
    let service: String
    let region: String
    let endpoint: ServiceEndpoint
    let http: any HTTPSender

    func post(
        body: [UInt8], headers: [(String, String)], signWith credentials: AWSCredentials?
    ) async throws(CredentialsError) -> ReceivedResponse {
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: .post, wireURL: endpoint.url, headerFields: HTTPFields(checking: headers))
            if let credentials {
                let signer = SigV4Signer(credentials: credentials, region: region, service: service)
                request = try signer.signHeaders(request, payload: .bytes(body), date: SigningDate.now()).signedRequest()
            }
        } catch {
            throw .transport(service: service, problem: "\(error)")
        }
        do { return try await http.send(request, body: .bytes(body)) } catch { throw .transport(service: service, problem: error.description) }
    }
}

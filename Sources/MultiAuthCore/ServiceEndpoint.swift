#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where an AWS service is reached: its real endpoint, or `AWS_ENDPOINT_URL_<SERVICE>` /
/// `AWS_ENDPOINT_URL` (as the AWS SDKs read them), so tests can point at a local peer.
public struct ServiceEndpoint: Sendable {
    /// The endpoint URL.
    public let url: String

    /// The endpoint for `service` (`sts`, `cognito-identity`, ...) in `region`, in botocore's
    /// order: `AWS_ENDPOINT_URL_<SERVICE ID>`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`
    /// (`profileEndpoint`), then the service's regional endpoint. With
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`, always the regional endpoint.
    /// - Throws: ``InvalidRegionError`` when `region` is not a region name, whichever endpoint
    ///   is chosen (botocore refuses it too): hostnames are built only from checked parts.
    public static func resolve(
        service: String, region: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        profileEndpoint: String? = nil
    ) throws(InvalidRegionError) -> ServiceEndpoint {
        try RegionName.validated(region, source: "the region for \(service)")
        let variable = "AWS_ENDPOINT_URL_" + serviceID(service)
        let ignoresConfigured = environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() == "true"
        let configured = [environment[variable], environment["AWS_ENDPOINT_URL"], profileEndpoint].compactMap(\.self).first(where: { !$0.isEmpty })
        if !ignoresConfigured, let url = configured { return ServiceEndpoint(url: url) }
        return ServiceEndpoint(url: "https://\(regionalHost(service: service, region: region))/")
    }

    /// `<service>.<region>.amazonaws.com`, except IAM Identity Center's two hosts.
    static func regionalHost(service: String, region: String) -> String {
        switch service {
        case "sso": "portal.sso.\(region).amazonaws.com"
        case "sso-oidc": "oidc.\(region).amazonaws.com"
        // The sign-in service's hosts, per partition (botocore's endpoint rules for `signin`).
        case "signin" where region.hasPrefix("cn-"): "\(region).signin.amazonaws.cn"
        case "signin" where region.hasPrefix("us-gov-"): "\(region).signin.amazonaws-us-gov.com"
        case "signin": "\(region).signin.aws.amazon.com"
        default: "\(service).\(region).amazonaws.com"
        }
    }

    /// The variable suffix botocore derives from the service ID (`SSO OIDC` → `SSO_OIDC`,
    /// `Cognito Identity Provider` → `COGNITO_IDENTITY_PROVIDER`), for the services MultiAuth
    /// calls, named by their endpoint prefix. Lowercased, it is the key in a config file's
    /// `[services NAME]` section.
    public static func serviceID(_ service: String) -> String {
        switch service {
        case "cognito-idp": "COGNITO_IDENTITY_PROVIDER"
        case "secretsmanager": "SECRETS_MANAGER"
        default: service.uppercased().replacing("-", with: "_")
        }
    }

    /// An explicit endpoint.
    public init(url: String) { self.url = url }
}

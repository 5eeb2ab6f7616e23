import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the EC2 instance metadata service (IMDS) is reached, read as botocore reads it: each
/// environment variable first, then the profile's config key.
///
/// | setting | variable | config key | default |
/// |---|---|---|---|
/// | ``endpoint`` | `AWS_EC2_METADATA_SERVICE_ENDPOINT` | `ec2_metadata_service_endpoint` | `http://169.254.169.254/` |
/// | IPv6 endpoint | `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6` | `ec2_metadata_service_endpoint_mode` | IPv4 |
/// | ``isDisabled`` | `AWS_EC2_METADATA_DISABLED` | — | false |
/// | ``isV1Disabled`` | `AWS_EC2_METADATA_V1_DISABLED` | `ec2_metadata_v1_disabled` | false |
/// | ``timeout`` | `AWS_METADATA_SERVICE_TIMEOUT` | `metadata_service_timeout` | 1 s |
/// | ``attempts`` | `AWS_METADATA_SERVICE_NUM_ATTEMPTS` | `metadata_service_num_attempts` | 1 |
public struct InstanceMetadataSettings: Sendable, Equatable {
    /// The IPv4 endpoint every instance has.
    public static let ipv4Endpoint = "http://169.254.169.254/"
    /// The IPv6 endpoint (Nitro instances).
    public static let ipv6Endpoint = "http://[fd00:ec2::254]/"

    /// The base URL, ending in `/`; request paths (`latest/...`) are appended to it.
    public var endpoint: String
    /// True when IMDS must not be called at all.
    public var isDisabled: Bool
    /// True when the IMDSv1 fallback (no session token) is forbidden.
    public var isV1Disabled: Bool
    /// How long each request may take (connecting and answering).
    public var timeout: Duration
    /// How many times each request is tried.
    public var attempts: Int

    /// Settings from `environment`, then `profile` (a profile's config keys).
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a value that cannot
    ///   be used, naming the variable or key.
    public init(environment: [String: String], profile: [String: String] = [:]) throws(CredentialsError) {
        func setting(_ variable: String, _ key: String?) -> (value: String, source: String)? {
            if let value = nonEmpty(environment[variable]) { return (value, variable) }
            if let key, let value = nonEmpty(profile[key]) { return (value, key) }
            return nil
        }
        isDisabled = environment["AWS_EC2_METADATA_DISABLED"]?.lowercased() == "true"
        isV1Disabled = setting("AWS_EC2_METADATA_V1_DISABLED", "ec2_metadata_v1_disabled")?.value.lowercased() == "true"
        timeout = .clamped(seconds: try Self.number(setting("AWS_METADATA_SERVICE_TIMEOUT", "metadata_service_timeout"), default: 1))
        attempts = Int(try Self.number(setting("AWS_METADATA_SERVICE_NUM_ATTEMPTS", "metadata_service_num_attempts"), default: 1))
        endpoint = try Self.endpoint(
            explicit: setting("AWS_EC2_METADATA_SERVICE_ENDPOINT", "ec2_metadata_service_endpoint"),
            mode: setting("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "ec2_metadata_service_endpoint_mode"))
    }

    private static func endpoint(explicit: (value: String, source: String)?, mode: (value: String, source: String)?) throws(CredentialsError) -> String {
        if let explicit {
            guard explicit.value.hasPrefix("http://") || explicit.value.hasPrefix("https://") else {
                throw .invalidSetting(source: explicit.source, problem: "\(Redaction.url(explicit.value)) is not an http or https URL")
            }
            return explicit.value.hasSuffix("/") ? explicit.value : explicit.value + "/"
        }
        switch mode?.value.lowercased() {
        case nil, "ipv4": return ipv4Endpoint
        case "ipv6": return ipv6Endpoint
        case let other?:
            throw .invalidSetting(source: mode?.source ?? "", problem: "\(Redaction.quoted(other)) is not IPv4 or IPv6")
        }
    }

    private static func number(_ setting: (value: String, source: String)?, default fallback: Double) throws(CredentialsError) -> Double {
        guard let setting else { return fallback }
        guard let number = Double(setting.value), number > 0, number <= 3600 else {
            throw .invalidSetting(source: setting.source, problem: "\(Redaction.quoted(setting.value)) is not a number of seconds or attempts from 1 to 3600")
        }
        return number
    }
}

import Foundation
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import Testing

/// The endpoint of every AWS service MultiAuth calls itself, against the endpoint botocore's
/// own clients resolve from the same variables and files.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason)) struct ServiceEndpointTests {
    static let services = ["sts", "sso", "sso-oidc", "cognito-identity", "cognito-idp"]

    static func botocore(_ environment: [String: String]) async throws -> [String: String] {
        try await Peers.oracle("scripts/oracles/botocore_endpoints.py", arguments: services, environment: environment)
    }

    static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    @Test(arguments: [
        [:],
        ["AWS_ENDPOINT_URL": "http://127.0.0.1:1/global"],
        [
            "AWS_ENDPOINT_URL": "http://127.0.0.1:1/global", "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:2/sts",
            "AWS_ENDPOINT_URL_SSO": "http://127.0.0.1:3/sso", "AWS_ENDPOINT_URL_SSO_OIDC": "http://127.0.0.1:4/oidc",
            "AWS_ENDPOINT_URL_COGNITO_IDENTITY": "http://127.0.0.1:5/identity",
            "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": "http://127.0.0.1:6/idp",
        ],
        ["AWS_ENDPOINT_URL_STS": "http://127.0.0.1:2/sts", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"],
    ])
    func theSameEndpointsAsBotocore(variables: [String: String]) async throws {
        let environment = variables.merging(["AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]) { $1 }
        let reference = try await Self.botocore(environment)
        for service in Self.services {
            let ours = try ServiceEndpoint.resolve(service: service, region: "us-east-1", environment: environment).url
            #expect(Self.trimmed(ours) == reference[service], "\(service)")
        }
    }

    /// A profile's `services` section, then its `endpoint_url`, come after both variables.
    @Test(arguments: [[:], ["AWS_ENDPOINT_URL_SSO": "http://127.0.0.1:3/sso", "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:2/sts"]])
    func aProfilesServicesSectionAndEndpointComeAfterTheVariables(variables: [String: String]) async throws {
        let files = try SharedFiles(config: """
            [profile local]
            services = local-services
            endpoint_url = http://127.0.0.1:7/profile
            [services local-services]
            sts =
              endpoint_url = http://127.0.0.1:8/sts-section
            sso_oidc =
              endpoint_url = http://127.0.0.1:8/oidc-section
            cognito_identity_provider =
              endpoint_url = http://127.0.0.1:8/idp-section

            """)
        defer { files.remove() }
        let environment = variables.merging(["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_PROFILE": "local"]) { $1 }
        let reference = try await Self.botocore(environment)
        let loaded = try SharedConfigFiles.load(environment: environment)
        for service in Self.services {
            let ours = try loaded.endpoint(for: service, profile: "local", region: "us-east-1", environment: environment)
            #expect(Self.trimmed(ours.url) == reference[service], "\(service)")
        }
    }
}

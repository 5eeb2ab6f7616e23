import Foundation
import IntegrationSupport
import MultiAuthCore
import Testing

/// A region becomes part of hostnames (`sts.REGION.amazonaws.com`): a value such as
/// `x@127.0.0.1:PORT#` would send the call, and the secrets in it, to another host. Every
/// source is checked against botocore's rule before anything is sent; the listener named by
/// the hostile value must see no connection, and the error names the source.
@Suite(.timeLimit(.minutes(5))) struct RegionInjectionTests {
    /// botocore's `validate_region_name` pattern, checked by hand against the rule's parts.
    @Test func theRuleIsBotocores() {
        for valid in ["us-east-1", "eu-west-3", "a", "1", "cn-north-1", String(repeating: "a", count: 63), "us-gov-west-1"] {
            #expect(RegionName.isValid(valid), "\(valid)")
        }
        let invalid = [
            "", "-us", "us-", "us_east_1", "us.east", "x@127.0.0.1:1#", "us-east-1/", "us east", "us-east-1\n", "é",
            String(repeating: "a", count: 64), "us-east-1#", "a:b",
        ]
        for value in invalid { #expect(!RegionName.isValid(value), "\(value)") }
    }

    static func hostile(_ counter: ConnectionCounter) -> String { "x@127.0.0.1:\(counter.port)#" }

    static let isolated = [
        "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        "AWS_ENDPOINT_URL": "", "AWS_PROFILE": "",
    ]

    /// Runs `arguments` with `environment`, expecting a refusal that names `source` and no
    /// connection to the listener.
    func expectRefused(
        _ arguments: [String], _ environment: [String: String], _ counter: ConnectionCounter, naming source: String, status: Int32 = 1
    ) async throws {
        let run = try await CLI.run(arguments, environment: Self.isolated.merging(environment) { $1 }, limit: 60)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.contains(source), "\(run.stderr)")
        #expect(run.stderr.contains("is not a region name"), "\(run.stderr)")
        #expect(counter.count == 0, "a call reached the host the region named")
    }

    @Test func aProfileRegionCannotRedirectSTS() async throws {
        let counter = try ConnectionCounter()
        defer { counter.stop() }
        let files = try SharedFiles(config: """
            [profile base]
            aws_access_key_id = AKIDBASE
            aws_secret_access_key = base-secret-0000
            [profile role]
            role_arn = arn:aws:iam::123456789012:role/r
            source_profile = base
            region = \(Self.hostile(counter))
            """)
        defer { files.remove() }
        try await expectRefused(
            ["credentials", "--profile", "role"], ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials],
            counter, naming: "profile 'role' region")
    }

    @Test func theEnvironmentRegionCannotRedirectWebIdentity() async throws {
        let counter = try ConnectionCounter()
        defer { counter.stop() }
        let token = FileManager.default.temporaryDirectory.appendingPathComponent("web-identity-\(UUID().uuidString)")
        try Data("token".utf8).write(to: token)
        defer { try? FileManager.default.removeItem(at: token) }
        try await expectRefused(
            ["credentials"],
            ["AWS_REGION": Self.hostile(counter), "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/r", "AWS_WEB_IDENTITY_TOKEN_FILE": token.path],
            counter, naming: "AWS_REGION")
    }

    @Test func anSSORegionCannotRedirectTheDeviceLogin() async throws {
        let counter = try ConnectionCounter()
        defer { counter.stop() }
        let files = try SharedFiles(config: """
            [sso-session corp]
            sso_start_url = https://example.awsapps.com/start
            sso_region = \(Self.hostile(counter))
            """)
        defer { files.remove() }
        try await expectRefused(
            ["login", "sso", "--sso-session", "corp", "--no-browser", "--timeout", "5"],
            ["AWS_CONFIG_FILE": files.config, "AWS_SSO_CACHE_DIR": files.folder], counter, naming: "[sso-session corp] sso_region")
    }

    @Test func theRegionFlagCannotRedirectAPasswordSignIn() async throws {
        let counter = try ConnectionCounter()
        defer { counter.stop() }
        try await expectRefused(
            ["login", "cognito", "--user-pool-id", "us-east-1_abc", "--client-id", "c", "--username", "u", "--flow", "password",
             "--password-stdin", "--region", Self.hostile(counter)],
            [:], counter, naming: "--region", status: 2)
    }

    @Test func anAWSConfigurationRegionCannotRedirectAPasswordSignIn() async throws {
        let counter = try ConnectionCounter()
        defer { counter.stop() }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("awsconfiguration-\(UUID().uuidString).json")
        try Data(#"{"AppSync": {"Default": {"ApiUrl": "https://a.appsync-api.us-east-1.amazonaws.com/graphql", "Region": "us-east-1", "AuthMode": "AMAZON_COGNITO_USER_POOLS"}}, "CognitoUserPool": {"Default": {"PoolId": "us-east-1_abc", "AppClientId": "c", "Region": "\#(Self.hostile(counter))"}}}"#.utf8)
            .write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let run = try await CLI.run(
            ["login", "cognito", "--config", config.path, "--username", "u", "--flow", "password", "--password-stdin"],
            environment: Self.isolated, input: "password\n", limit: 60)
        #expect(run.status != 0)
        #expect(run.stderr.contains("CognitoUserPool.Default.Region") && run.stderr.contains("is not a region name"), "\(run.stderr)")
        #expect(counter.count == 0, "a call reached the host the region named")
    }

    /// A region with a terminal escape is refused, and the escape is not printed raw.
    @Test func aRegionWithControlCharactersIsNeitherUsedNorPrinted() async throws {
        let run = try await CLI.run(
            ["credentials"],
            environment: Self.isolated.merging([
                "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-from-env-0000", "AWS_REGION": "us-east-1\u{1b}[2J",
            ]) { $1 }, limit: 60)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("AWS_REGION") && run.stderr.contains("\\u{1b}"), "\(run.stderr)")
        #expect(!run.stdout.contains("\u{1b}") && !run.stderr.contains("\u{1b}"))
    }
}

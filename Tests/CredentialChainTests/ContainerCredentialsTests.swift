import Foundation
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// The suites that read the container endpoint's token file, and the one test that rotates
/// it: one test at a time, so no reader sees the file change under it.
@Suite(.timeLimit(.minutes(5)), .serialized) enum ContainerTokenUsers {}

extension ContainerTokenUsers {
    /// Container credentials (ECS task roles, EKS Pod Identity) against the stand-in endpoint
    /// (scripts/peers/container_server.py), with botocore's own ContainerProvider run against the
    /// same endpoint and environment in each test: both must get the same credentials, or both
    /// refuse. No test sends anything beyond 127.0.0.1: refused hosts are refused before a request.
    @Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.containerAvailable && Peers.available, Peers.reason)) struct ContainerCredentialsTests {
        static func botocore(_ environment: [String: String]) async throws -> [String: String] {
            try await Peers.oracle("scripts/oracles/botocore_container.py", environment: environment)
        }

        static func ours(_ environment: [String: String]) async throws(CredentialsError) -> AWSCredentials {
            try await ContainerCredentialsProvider(environment: environment, http: CurlHTTPClient(), retry: Backoff(base: .zero)).credentials().credentials
        }

        @Test func theSameCredentialsAsBotocoreAndATokenFileReadOnEveryCall() async throws {
            let original = try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8)
            defer { try? Data(original.utf8).write(to: URL(fileURLWithPath: Peers.containerTokenFile)) }
            let environment = [
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials",
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": Peers.containerTokenFile,
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": "the-file-wins",
            ]
            for token in [original, "pod-identity-token-rotated"] {
                try Data(token.utf8).write(to: URL(fileURLWithPath: Peers.containerTokenFile))
                let credentials = try await Self.ours(environment)
                let reference = try await Self.botocore(environment)
                #expect(reference["error"] == nil, "botocore: \(reference)")
                #expect(credentials.accessKeyId == reference["access_key"] && credentials.secretAccessKey == reference["secret_key"])
                #expect(credentials.sessionToken == reference["token"] && credentials.sessionToken == "container-session-token-" + token)
            }
        }

        @Test func theTokenVariableAndAWrongToken() async throws {
            var environment = ["AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials"]
            environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8)
            #expect(try await Self.ours(environment).accessKeyId == Self.botocoreKey(environment))
            environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "wrong"
            await #expect {
                try await Self.ours(environment)
            } throws: { error in
                guard case .serviceError(_, "HTTP 401", _)? = (error as? CredentialsError)?.kind else { return false }
                return !"\(error)".contains("wrong")
            }
            await #expect(try Self.botocore(environment)["error"] != nil)
        }

        static func botocoreKey(_ environment: [String: String]) async throws -> String? { try await botocore(environment)["access_key"] }

        /// Hosts outside the rule, and tokens with a line break, are refused before any request,
        /// by both.
        // Only addresses that stay on this machine even if the rule were broken (0.0.0.0 is not loopback to botocore either).
        @Test(arguments: ["http://0.0.0.0:9/creds", "http://localhost.:9/creds", "ftp://127.0.0.1/creds"])
        func aHostOutsideTheRuleIsRefused(url: String) async throws {
            let environment = ["AWS_CONTAINER_CREDENTIALS_FULL_URI": url]
            await #expect {
                try await Self.ours(environment)
            } throws: { error in
                guard case .refusedEndpoint(let source, _, let rule)? = (error as? CredentialsError)?.kind else { return false }
                return source == "AWS_CONTAINER_CREDENTIALS_FULL_URI" && (rule.contains("loopback") || url.hasPrefix("ftp:"))
            }
            await #expect(try Self.botocore(environment)["error"] != nil)
        }

        @Test func aTokenWithALineBreakIsRefused() async throws {
            let environment = ["AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "a\r\nX: 1"]
            await #expect(throws: CredentialsError.unsafeValue(source: "AWS_CONTAINER_AUTHORIZATION_TOKEN", field: "the authorization token")) {
                try await Self.ours(environment)
            }
            await #expect(try Self.botocore(environment)["error"] == "ValueError")
        }

        @Test func serverErrorsAndMalformedAnswersAreTyped() async throws {
            let token = try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8)
            await #expect {
                try await Self.ours(["AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/fail500", "AWS_CONTAINER_AUTHORIZATION_TOKEN": token])
            } throws: { error in
                guard case .serviceError(_, "HTTP 500", _)? = (error as? CredentialsError)?.kind else { return false }
                return true
            }
            await #expect {
                try await Self.ours(["AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/malformed", "AWS_CONTAINER_AUTHORIZATION_TOKEN": token])
            } throws: { error in
                guard case .serviceError(_, "MalformedResponse", _)? = (error as? CredentialsError)?.kind else { return false }
                return true
            }
        }

        /// `multiauth request --auth iam` with nothing but the container variables: the verifying
        /// API server checks the signature (and the session token it covers) with botocore.
        @Test func aRequestSignedWithContainerCredentialsVerifies() async throws {
            let token = try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8)
            let run = try await CLI.run(
                ["request", Peers.api + "/iam/container", "--auth", "iam", "--region", "us-east-1", "--service", "execute-api", "--fail"],
                environment: [
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials", "AWS_CONTAINER_AUTHORIZATION_TOKEN": token,
                    "AWS_CONFIG_FILE": "/nonexistent/config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials",
                ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("container-session-token-"))
        }
    }
}

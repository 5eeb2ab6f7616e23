import Foundation
import IntegrationSupport
import Testing

extension ContainerTokenUsers {
    /// `multiauth credentials`: which source answered, never the secret; `--format process` is a
    /// credential_process that botocore itself consumes.
    @Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.containerAvailable && Peers.available, Peers.reason)) struct CredentialsCommandTests {
        /// botocore's own session chain (as boto3 makes it) with `environment`.
        static func botocoreSession(_ environment: [String: String]) async throws -> [String: String] {
            try await Peers.oracle("scripts/oracles/botocore_session_credentials.py", environment: environment)
        }

        @Test func itNamesTheSourceAndNeverTheSecret() async throws {
            let run = try await CLI.run(["credentials"], environment: [
                "AWS_ACCESS_KEY_ID": "AKIDFROMENV", "AWS_SECRET_ACCESS_KEY": "secret-from-env-0000", "AWS_SESSION_TOKEN": "token-from-env-0000",
                "AWS_REGION": "eu-west-3",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("source: environment\naccess key id: AKIDFROMENV\nsession token: present\nexpires: never\nregion: eu-west-3"))
            #expect(!run.stdout.contains("secret-from-env") && !run.stdout.contains("token-from-env"))
        }

        /// A profile whose credential_process is `multiauth credentials --format process`, which
        /// itself finds the container endpoint: botocore's own chain must end with exactly the
        /// credentials the endpoint hands out.
        @Test func botocoreUsesItAsACredentialProcess() async throws {
            let token = try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8)
            // The process must not read the same profile (it would run itself): it gets no files.
            let command = "env -u AWS_PROFILE AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent \(Paths.multiauth.path) credentials --format process"
            let files = try SharedFiles(config: "[profile chained]\ncredential_process = \(command)\n")
            defer { files.remove() }
            let resolved = try await Self.botocoreSession([
                "AWS_PROFILE": "chained", "AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials,
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials", "AWS_CONTAINER_AUTHORIZATION_TOKEN": token,
            ])
            #expect(resolved["method"] == "custom-process")
            #expect(resolved["access_key"] == Peers.keyId && resolved["secret_key"] == Peers.secret)
            #expect(resolved["token"] == "container-session-token-" + token)
        }

        /// Issue 45, item 6: the docs' own line, `credential_process = multiauth credentials …`,
        /// in the profile it resolves started itself again and again until the deadline. The
        /// nested run now refuses at once, naming the profiles.
        @Test func aCredentialProcessThatResolvesItsOwnProfileIsRefused() async throws {
            let command = "\(Paths.multiauth.path) credentials --profile loop --format process"
            let files = try SharedFiles(config: "[profile loop]\ncredential_process = \(command)\n")
            defer { files.remove() }
            let start = Date()
            let run = try await CLI.run(
                ["credentials", "--profile", "loop", "--format", "process"],
                environment: ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials], limit: 60)
            // The child's reason reaches the user, as botocore shows a credential_process's standard error.
            #expect(run.status != 0 && run.stderr.contains("failed: ended with exited(1): "), "\(run.stderr)")
            #expect(run.stderr.contains("again from inside its own credential_process"), "\(run.stderr)")
            #expect(Date().timeIntervalSince(start) < 20, "took \(Date().timeIntervalSince(start)) s")
            // What the nested run says on its own.
            let nested = try await CLI.run(
                ["credentials", "--profile", "loop", "--format", "process"],
                environment: [
                    "AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "MULTIAUTH_CREDENTIAL_PROCESS_PROFILES": "loop",
                ])
            #expect(nested.status != 0 && nested.stderr.contains("profile 'loop' again from inside its own credential_process"), "\(nested.stderr)")
        }

        /// `credential_source = EcsContainer`: the container's credentials assume the role through
        /// STS (moto), for us and for botocore's own chain on the same files and variables.
        @Test func aRoleAssumedWithContainerCredentials() async throws {
            let files = try SharedFiles(config: "[profile ecsrole]\nrole_arn = arn:aws:iam::123456789012:role/ecs\ncredential_source = EcsContainer\nregion = us-east-1\n")
            defer { files.remove() }
            let environment = [
                "AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_ENDPOINT_URL_STS": Peers.moto,
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.container + "/v1/credentials",
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": try String(contentsOfFile: Peers.containerTokenFile, encoding: .utf8),
            ]
            let run = try await CLI.run(["credentials", "--profile", "ecsrole"], environment: environment)
            #expect(run.status == 0 && run.stdout.hasPrefix("source: STS AssumeRole\naccess key id: ASIA"), "\(run.stdout) \(run.stderr)")
            let resolved = try await Self.botocoreSession(environment.merging(["AWS_PROFILE": "ecsrole"]) { $1 })
            #expect(resolved["method"] == "assume-role" && resolved["access_key"]?.hasPrefix("ASIA") == true, "\(resolved)")
        }

        /// A profile's `endpoint_url` sends its STS call to that endpoint (moto) when no variable
        /// names one, for us and for botocore.
        @Test func aProfileEndpointURLIsUsedForSTS() async throws {
            let files = try SharedFiles(config: """
                [profile base]
                aws_access_key_id = AKIDBASE
                aws_secret_access_key = base-secret
                [profile role]
                role_arn = arn:aws:iam::123456789012:role/r
                source_profile = base
                region = us-east-1
                endpoint_url = \(Peers.moto)

                """)
            defer { files.remove() }
            let environment = ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials]
            let run = try await CLI.run(["credentials", "--profile", "role"], environment: environment)
            #expect(run.status == 0 && run.stdout.hasPrefix("source: STS AssumeRole\naccess key id: ASIA"), "\(run.stdout) \(run.stderr)")
            let resolved = try await Self.botocoreSession(environment.merging(["AWS_PROFILE": "role"]) { $1 })
            #expect(resolved["method"] == "assume-role" && resolved["access_key"]?.hasPrefix("ASIA") == true, "\(resolved)")
        }

        /// The signing region, when neither --region nor the host says it: AWS_REGION, then
        /// AWS_DEFAULT_REGION, then the profile's region; the botocore-checking server accepts each.
        @Test func theRegionComesFromTheEnvironmentOrTheProfile() async throws {
            let files = try SharedFiles(config: "[default]\nregion = eu-west-1\n")
            defer { files.remove() }
            let keys = ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_CONFIG_FILE": files.config,
                        "AWS_SHARED_CREDENTIALS_FILE": files.credentials]
            for (extra, region) in [(["AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "us-west-2"], "ap-south-1"),
                                    (["AWS_DEFAULT_REGION": "us-west-2"], "us-west-2"), ([:], "eu-west-1")] {
                let run = try await CLI.run(["request", Peers.api + "/iam/region", "--auth", "iam", "--service", "execute-api", "--fail"],
                                           environment: keys.merging(extra) { $1 })
                #expect(run.status == 0 && run.stdout.contains("/\(region)/execute-api/aws4_request"), "\(region): \(run.stderr)")
            }
        }
    }
}

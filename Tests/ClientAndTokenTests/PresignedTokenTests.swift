import Foundation
import IntegrationSupport
import Testing

/// `multiauth rds-token` and `eks-token` against botocore (the AWS CLI's recipes, in
/// scripts/oracles/botocore_tokens.py), and `multiauth token bedrock` against AWS's
/// aws-bedrock-token-generator (scripts/oracles/bedrock_key.py), for the same credentials and
/// a fixed time: byte for byte.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available && !Peers.upstream.isEmpty, Peers.reason))
struct PresignedTokenTests {
    static let environment = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        "AWS_SESSION_TOKEN": "session-token/x+y=", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    ]

    static func botocore(region: String, host: String, port: Int, user: String, cluster: String) async throws -> [String: String] {
        let output = try await Peers.python(
            "scripts/oracles/botocore_tokens.py",
            ["20261122T053807Z", region, host, String(port), user, cluster, "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token/x+y="])
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
    }

    @Test(arguments: [("us-east-1", "mydb.abc.us-east-1.rds.amazonaws.com", 5432, "iam_user"), ("eu-west-3", "db-1.internal", 3306, "iam user@x+é")])
    func rdsTokensMatchBotocore(region: String, host: String, port: Int, user: String) async throws {
        let expected = try await Self.botocore(region: region, host: host, port: port, user: user, cluster: "c")
        let run = try await CLI.run(
            ["rds-token", "--hostname", host, "--port", String(port), "--username", user, "--region", region, "--date", "20261122T053807Z"],
            environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (expected["rds"] ?? "") + "\n")
    }

    @Test func eksExecCredentialMatchesBotocore() async throws {
        let expected = try await Self.botocore(region: "us-west-2", host: "h", port: 1, user: "u", cluster: "my-cluster")
        let run = try await CLI.run(
            ["eks-token", "--cluster-name", "my-cluster", "--region", "us-west-2", "--date", "20261122T053807Z"],
            environment: Self.environment.merging(["KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        let credential = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(credential["kind"] as? String == "ExecCredential")
        #expect(credential["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        let status = try #require(credential["status"] as? [String: String])
        #expect(status["token"] == expected["eks"])
        // `aws eks get-token`: the signing time plus 14 minutes.
        #expect(status["expirationTimestamp"] == "2026-11-22T05:52:07Z")
    }

    /// The generator's key for the same credentials, region, lifetime and time.
    static func generatorKey(region: String, expires: Int, date: String) async throws -> String {
        let output = try await Peers.python(
            "scripts/oracles/bedrock_key.py",
            ["generate", "--key", "AKIDEXAMPLE", "--secret", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "--token", "session-token/x+y=", "--region", region,
             "--expires", String(expires), "--date", date])
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What botocore, signing the key's request again with the secret, says of `key`.
    static func check(_ key: String) async throws -> [String: Any] {
        let output = try await Peers.python("scripts/oracles/bedrock_key.py", ["check", "--secret", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", key])
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test(arguments: [("12h", 43_200, "us-west-2"), ("30m", 1_800, "eu-central-1"), ("900", 900, "us-east-1")])
    func bedrockKeysMatchTheGenerator(expiresIn: String, seconds: Int, region: String) async throws {
        let expected = try await Self.generatorKey(region: region, expires: seconds, date: "20261122T053807Z")
        let run = try await CLI.run(
            ["token", "bedrock", "--region", region, "--expires-in", expiresIn, "--date", "20261122T053807Z"], environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected + "\n")
        let checked = try await Self.check(String(run.stdout.dropLast()))
        #expect(checked["valid"] as? Bool == true && checked["expires"] as? Int == seconds, "\(checked)")
    }

    /// Credentials that expire in an hour (a credential_process's) make a key of at most an
    /// hour, whatever --expires-in asks, and say so.
    @Test func aBedrockKeyNeverOutlivesItsCredentials() async throws {
        let expiration = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
        let answer = #"{"Version": 1, "AccessKeyId": "AKIDEXAMPLE", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "SessionToken": "s", "Expiration": "\#(expiration)"}"#
        let files = try SharedFiles(config: "[profile short]\ncredential_process = echo '\(answer)'\n")
        defer { files.remove() }
        let run = try await CLI.run(
            ["token", "bedrock", "--profile", "short", "--region", "us-east-1"],
            environment: ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("until the credentials"), "\(run.stderr)")
        let checked = try await Self.check(String(run.stdout.dropLast()))
        let expires = try #require(checked["expires"] as? Int)
        #expect(checked["valid"] as? Bool == true && (3_500...3_600).contains(expires), "\(checked)")
    }

    @Test(arguments: [["--expires-in", "13h"], ["--expires-in", "0"], ["--expires-in", "ten"], ["--region", "x@y#"]])
    func aBedrockKeyOfBadShapeIsRefused(arguments: [String]) async throws {
        let run = try await CLI.run(["token", "bedrock", "--region", "us-east-1"] + arguments, environment: Self.environment)
        #expect(run.status != 0 && (run.stderr.contains("--expires-in") || run.stderr.contains("not a region name")), "\(run.stderr)")
        #expect(!run.stderr.contains("wJalrXUtnFEMI") && run.stdout.isEmpty)
    }

    /// As the AWS SDKs do: with AWS_BEARER_TOKEN_BEDROCK set, a call signed for bedrock carries
    /// the key as a bearer token instead of a signature; for another service it is ignored.
    @Test func theBedrockKeyInTheEnvironmentReplacesSigningForBedrock() async throws {
        let key = try await Self.generatorKey(region: "us-east-1", expires: 900, date: "20261122T053807Z")
        let environment = Self.environment.merging(["AWS_BEARER_TOKEN_BEDROCK": key]) { $1 }
        func authorization(service: String) async throws -> String {
            let run = try await CLI.run(
                ["request", Peers.upstream + "/bedrock/model/x/converse", "--auth", "iam", "--region", "us-east-1", "--service", service, "--fail"],
                environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let echo = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let headers = try #require(echo["headers"] as? [String: String])
            return headers.first { $0.key.lowercased() == "authorization" }?.value ?? ""
        }
        #expect(try await authorization(service: "bedrock") == "Bearer " + key)
        #expect(try await authorization(service: "execute-api").hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
    }

    @Test func badInputIsRefusedClearly() async throws {
        let host = try await CLI.run(
            ["rds-token", "--hostname", "db/evil", "--port", "5432", "--username", "u", "--region", "us-east-1"], environment: Self.environment)
        #expect(host.status != 0 && host.stderr.contains("--hostname") && host.stderr.contains("not a host name"), "\(host.stderr)")
        let region = try await CLI.run(["eks-token", "--cluster-name", "c", "--region", "x@127.0.0.1#"], environment: Self.environment)
        #expect(region.status != 0 && region.stderr.contains("not a region name"), "\(region.stderr)")
        #expect(!host.stderr.contains("wJalrXUtnFEMI") && !region.stderr.contains("wJalrXUtnFEMI"))
    }

    /// kubectl (Debian's) with `multiauth eks-token` as its exec plugin, against the HTTPS API
    /// stand-in that recomputes each token's signature with botocore: `kubectl version` reaches
    /// the server; a token for another cluster is refused (its signed x-k8s-aws-id differs).
    @Test(.enabled(if: !Peers.eksAPI.isEmpty, Peers.reason)) func kubectlVersionWorksThroughTheExecPlugin() async throws {
        let folder = try ScratchFolder("multiauth-kubectl")
        defer { folder.remove() }
        func kubeconfig(cluster: String) throws -> String {
            let path = folder.path + "/kubeconfig-\(cluster)"
            try Data("""
                apiVersion: v1
                kind: Config
                clusters:
                - name: stub
                  cluster: {server: "\(Peers.eksAPI)", certificate-authority: "\(Peers.tlsCA)"}
                users:
                - name: eks
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: "\(Paths.multiauth.path)"
                      args: [eks-token, --cluster-name, "\(cluster)", --region, us-east-1]
                      interactiveMode: Never
                contexts:
                - name: stub
                  context: {cluster: stub, user: eks}
                current-context: stub

                """.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let environment = ProcessInfo.processInfo.environment.merging([
            "AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret, "AWS_CONFIG_FILE": "/nonexistent",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "HOME": folder.path,
        ]) { $1 }
        let kubectl = URL(fileURLWithPath: "/usr/bin/kubectl")
        let (goodConfig, otherConfig) = (try kubeconfig(cluster: "multiauth-test"), try kubeconfig(cluster: "another-cluster"))
        let good = try await offPool {
            try ChildProcess.run(kubectl, ["--kubeconfig", goodConfig, "version", "-o", "json"], environment: environment, limit: 60)
        }
        let output = try JSONSerialization.jsonObject(with: good.stdout) as? [String: Any]
        let server = output?["serverVersion"] as? [String: Any]
        #expect(good.status == 0 && server?["gitVersion"] as? String == "v1.31.0-eks-stub", "\(String(decoding: good.stderr, as: UTF8.self))")
        let other = try await offPool {
            try ChildProcess.run(kubectl, ["--kubeconfig", otherConfig, "version", "-o", "json"], environment: environment, limit: 60)
        }
        #expect(other.status != 0 && String(decoding: other.stderr, as: UTF8.self).contains("You must be logged in"), "\(String(decoding: other.stderr, as: UTF8.self))")
    }
}

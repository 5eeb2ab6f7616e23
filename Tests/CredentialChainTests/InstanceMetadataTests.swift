import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Synchronization
import Testing

/// EC2 instance metadata against the strict stand-in (scripts/peers/imds_server.py: IMDSv2
/// tokens required and expiring, a v1-only prefix, a malformed one, a silent one), with
/// botocore's own session chain run against the same endpoint in each case: both must get the
/// same credentials, or both none. Nothing here reaches beyond 127.0.0.1.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.imds.isEmpty && Peers.available, Peers.reason), .serialized) struct InstanceMetadataTests {
    /// Variables that leave IMDS (at `prefix` of the peer) as the only source.
    static func onlyIMDS(_ prefix: String = "", _ extra: [String: String] = [:]) -> [String: String] {
        [
            "AWS_EC2_METADATA_SERVICE_ENDPOINT": Peers.imds + "/" + prefix, "AWS_EC2_METADATA_DISABLED": "false",
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ].merging(extra) { $1 }
    }

    static func botocore(_ environment: [String: String]) async throws -> [String: String] {
        try await Peers.oracle("scripts/oracles/botocore_session_credentials.py", environment: environment)
    }

    static func ours(_ environment: [String: String], clock: TimeSource = .system) async throws(CredentialsError) -> ExpiringCredentials {
        try await InstanceMetadataCredentialsProvider(
            client: InstanceMetadataClient(settings: InstanceMetadataSettings(environment: environment), http: CurlHTTPClient(), clock: clock)
        ).credentials()
    }

    struct Stats: Decodable { let put: Int, get: Int }

    static func stats() async throws -> Stats {
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: Peers.imds + "/_peer/stats"))
        return try JSONDecoder().decode(Stats.self, from: Data(response.body))
    }

    @Test(arguments: ["", "v1only/"]) func theSameCredentialsAsBotocore(prefix: String) async throws {
        let environment = Self.onlyIMDS(prefix)
        let ours = try await Self.ours(environment)
        let reference = try await Self.botocore(environment)
        #expect(reference["method"] == "iam-role", "\(reference)")
        #expect(ours.credentials.accessKeyId == reference["access_key"] && ours.credentials.secretAccessKey == reference["secret_key"])
        #expect(ours.credentials.sessionToken == reference["token"])
        #expect(ours.credentials.sessionToken == "imds-session-token-" + (prefix.isEmpty ? "strict" : "v1only"))
        #expect(ours.source == "instance metadata role 'multiauth-instance-role'" && ours.expiration != nil)
    }

    @Test func noFallbackToIMDSv1WhenItIsDisabled() async throws {
        let environment = Self.onlyIMDS("v1only/", ["AWS_EC2_METADATA_V1_DISABLED": "true"])
        await #expect {
            try await Self.ours(environment)
        } throws: { error in
            guard case .serviceError(_, "HTTP 405", let message)? = (error as? CredentialsError)?.kind else { return false }
            return message.contains("AWS_EC2_METADATA_V1_DISABLED")
        }
        await #expect(try Self.botocore(environment)["error"] != nil)
        // Through the strict IMDS the v1 switch changes nothing.
        #expect(try await Self.ours(Self.onlyIMDS("", ["AWS_EC2_METADATA_V1_DISABLED": "true"])).credentials.sessionToken == "imds-session-token-strict")
    }

    /// One token for many calls until a minute before its TTL (by our clock); a 401 (the peer
    /// forgot its tokens) renews it once.
    @Test func theTokenIsReusedRenewedBeforeItsTTLAndAfterA401() async throws {
        let now = Mutex(Date().timeIntervalSince1970)
        let clock = TimeSource { now.withLock { $0 } }
        let client = InstanceMetadataClient(settings: try InstanceMetadataSettings(environment: Self.onlyIMDS()), http: CurlHTTPClient(), clock: clock)
        let provider = InstanceMetadataCredentialsProvider(client: client)
        let start = try await Self.stats()
        for _ in 0..<3 { _ = try await provider.credentials() }
        #expect(try await Self.stats().put == start.put + 1)
        now.withLock { $0 += Double(InstanceMetadataClient.tokenTTL) - 30 }
        _ = try await provider.credentials()
        #expect(try await Self.stats().put == start.put + 2)
        _ = try await CurlHTTPClient().send(try HTTPRequest(method: .post, wireURL: Peers.imds + "/_peer/revoke"))
        let before = try await Self.stats()
        #expect(try await provider.credentials().credentials.sessionToken == "imds-session-token-strict")
        let after = try await Self.stats()
        #expect(after.put == before.put + 1 && after.get == before.get + 3)  // the 401, then role name and document
    }

    @Test func aMalformedDocumentIsTypedAndNeverQuoted() async throws {
        await #expect {
            try await Self.ours(Self.onlyIMDS("malformed/"))
        } throws: { error in
            guard case .serviceError(let service, "MalformedResponse", _)? = (error as? CredentialsError)?.kind else { return false }
            return service.contains("multiauth-instance-role") && !"\(error)".contains("html")
        }
        await #expect(try Self.botocore(Self.onlyIMDS("malformed/"))["error"] != nil)
    }

    /// A silent or absent IMDS is "nothing here" within the timeout, so the chain reports no
    /// credentials instead of waiting; disabled, it is not asked.
    @Test(arguments: ["silent/", "closed"]) func anUnreachableIMDSEndsTheChainWithNotFound(target: String) async throws {
        var environment = Self.onlyIMDS(target, ["AWS_METADATA_SERVICE_TIMEOUT": "0.3"])
        if target == "closed" { environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = "http://127.0.0.1:9/" }
        let chain = DefaultCredentialsChain.make(environment: environment, http: CurlHTTPClient())
        await #expect {
            try await chain.credentials()
        } throws: { error in
            guard case .notFound(let reasons)? = (error as? CredentialsError)?.kind else { return false }
            return reasons.contains("did not answer the token request")
        }
        await #expect(throws: CredentialsError.notFound("instance metadata is disabled (AWS_EC2_METADATA_DISABLED)")) {
            try await Self.ours(Self.onlyIMDS("", ["AWS_EC2_METADATA_DISABLED": "true"]))
        }
    }

    @Test(arguments: [
        ("AWS_METADATA_SERVICE_TIMEOUT", "soon"), ("AWS_METADATA_SERVICE_NUM_ATTEMPTS", "0"),
        ("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv5"), ("AWS_EC2_METADATA_SERVICE_ENDPOINT", "169.254.169.254"),
    ])
    func unusableSettingsNameTheVariable(variable: String, value: String) throws {
        #expect {
            try InstanceMetadataSettings(environment: [variable: value])
        } throws: { error in
            guard case .invalidSetting(let source, _)? = (error as? CredentialsError)?.kind else { return false }
            return source == variable
        }
    }

    @Test func settingsComeFromTheEnvironmentThenTheProfile() throws {
        let profile = ["ec2_metadata_service_endpoint_mode": "IPv6", "metadata_service_timeout": "2", "metadata_service_num_attempts": "3"]
        let settings = try InstanceMetadataSettings(environment: ["AWS_METADATA_SERVICE_TIMEOUT": "5"], profile: profile)
        #expect(settings.endpoint == "http://[fd00:ec2::254]/" && settings.timeout == .seconds(5) && settings.attempts == 3)
        #expect(try InstanceMetadataSettings(environment: [:]).endpoint == "http://169.254.169.254/")
    }

    @Test func theRegionComesFromIMDSOnlyWhenNothingElseNamesOne() async throws {
        #expect(try await SharedConfigFiles.resolvedRegion(environment: Self.onlyIMDS(), http: CurlHTTPClient()) == "eu-west-3")
        #expect(try await SharedConfigFiles.resolvedRegion(environment: Self.onlyIMDS("", ["AWS_REGION": "ap-south-1"]), http: CurlHTTPClient()) == "ap-south-1")
        #expect(try await SharedConfigFiles.resolvedRegion(environment: Self.onlyIMDS("", ["AWS_EC2_METADATA_DISABLED": "true"]), http: CurlHTTPClient()) == nil)
    }

    /// `multiauth request --auth iam` with nothing but IMDS: credentials and region from the
    /// metadata peer, accepted by the verifying API server.
    @Test func aSignedCallWithNothingButIMDS() async throws {
        let run = try await CLI.run(
            ["request", Peers.api + "/iam/imds", "--auth", "iam", "--service", "execute-api", "--fail"], environment: Self.onlyIMDS())
        #expect(run.status == 0, "\(run.stderr)")
        let authorization = try Peers.echo(run).headers.first { $0[0].lowercased() == "authorization" }?[1] ?? ""
        #expect(authorization.contains("Credential=\(Peers.keyId)/") && authorization.contains("/eu-west-3/execute-api/aws4_request"))
        let credentials = try await CLI.run(["credentials"], environment: Self.onlyIMDS())
        #expect(credentials.stdout.hasPrefix("source: instance metadata role 'multiauth-instance-role'\naccess key id: \(Peers.keyId)\n"))
        #expect(credentials.stdout.contains("region: eu-west-3") && !credentials.stdout.contains(Peers.secret))
    }

    /// `credential_source = Ec2InstanceMetadata`: the instance role's credentials assume the
    /// role through STS (moto), for us and for botocore on the same files.
    @Test func aRoleAssumedWithInstanceCredentials() async throws {
        let files = try SharedFiles(config: "[profile ec2role]\nrole_arn = arn:aws:iam::123456789012:role/ec2\ncredential_source = Ec2InstanceMetadata\nregion = us-east-1\n")
        defer { files.remove() }
        let environment = Self.onlyIMDS("", ["AWS_CONFIG_FILE": files.config, "AWS_SHARED_CREDENTIALS_FILE": files.credentials, "AWS_ENDPOINT_URL_STS": Peers.moto])
        let run = try await CLI.run(["credentials", "--profile", "ec2role"], environment: environment)
        #expect(run.status == 0 && run.stdout.hasPrefix("source: STS AssumeRole\naccess key id: ASIA"), "\(run.stdout) \(run.stderr)")
        let resolved = try await Self.botocore(environment.merging(["AWS_PROFILE": "ec2role"]) { $1 })
        #expect(resolved["method"] == "assume-role" && resolved["access_key"]?.hasPrefix("ASIA") == true, "\(resolved)")
    }
}

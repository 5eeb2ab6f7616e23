import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Synchronization
import Testing

/// Writes throwaway AWS config files and returns the environment that points at them.
final class AWSFiles: Sendable {
    let folder: String

    init(credentials: String = "", config: String = "") {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-aws-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/credentials", contents: Data(credentials.utf8))
        _ = FileManager.default.createFile(atPath: folder + "/config", contents: Data(config.utf8))
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["AWS_SHARED_CREDENTIALS_FILE": folder + "/credentials", "AWS_CONFIG_FILE": folder + "/config", "HOME": folder]
            .merging(extra) { $1 }
    }
}

@Suite(.timeLimit(.minutes(5))) struct SharedFileProviderTests {
    let http = CurlHTTPClient()

    @Test func staticKeysFromANamedProfileAndTheCredentialsFileWins() async throws {
        let files = AWSFiles(
            credentials: "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = devsecret\n",
            config: "[profile dev]\nregion = eu-west-1\naws_access_key_id = AKIDCONFIG\n[sso-session x]\nsso_region = us-east-1\n")
        let provider = ProfileCredentialsProvider(profile: "dev", environment: files.environment(), http: http)
        let resolved = try await provider.credentials()
        #expect(resolved.credentials.accessKeyId == "AKIDDEV")
        #expect(resolved.credentials.secretAccessKey == "devsecret")
    }

    @Test func malformedFilesNameTheFileAndLine() async throws {
        let files = AWSFiles(credentials: "[default]\naws_access_key_id = A\nthis line is wrong\n")
        let provider = ProfileCredentialsProvider(environment: files.environment(), http: http)
        await #expect(throws: CredentialsError.malformedFile(path: files.folder + "/credentials", line: 3, problem: "expected 'key = value'")) {
            try await provider.credentials()
        }
    }

    @Test func missingProfilesAndCyclesAreNamed() async throws {
        let files = AWSFiles(config: "[profile a]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = b\n[profile b]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = a\n")
        await #expect(throws: CredentialsError.profileCycle(["a", "b", "a"])) {
            try await ProfileCredentialsProvider(profile: "a", environment: files.environment(), http: http).credentials()
        }
        await #expect {
            try await ProfileCredentialsProvider(profile: "nope", environment: files.environment(), http: http).credentials()
        } throws: { error in
            guard case .profileNotFound(let name, _)? = (error as? CredentialsError)?.kind else { return false }
            return name == "nope"
        }
    }

    @Test func credentialProcessOutputIsRead() async throws {
        let files = AWSFiles(config: """
            [profile proc]
            credential_process = printf '{"Version":1,"AccessKeyId":"AKIDPROC","SecretAccessKey":"s","SessionToken":"t","Expiration":"2099-01-01T00:00:00Z"}'
            [profile broken]
            credential_process = echo not-json
            [profile failing]
            credential_process = exit 3
            [profile partial]
            credential_process = printf '{"Version":1,"AccessKeyId":"AKIDPART","SessionToken":"t"}'
            """)
        let resolved = try await ProfileCredentialsProvider(profile: "proc", environment: files.environment(), http: http).credentials()
        #expect(resolved.credentials.accessKeyId == "AKIDPROC")
        #expect(resolved.credentials.sessionToken == "t")
        #expect(resolved.expiration == Date(timeIntervalSince1970: 4_070_908_800))
        for (profile, problem) in [
            ("broken", "its output is not the JSON expected: not valid JSON"), ("failing", "exited(3)"),
            ("partial", #"its output is not the JSON expected: no "SecretAccessKey""#),
        ] {
            await #expect {
                try await ProfileCredentialsProvider(profile: profile, environment: files.environment(), http: http).credentials()
            } throws: { error in
                guard case .credentialProcessFailed(_, let reported)? = (error as? CredentialsError)?.kind else { return false }
                return reported.contains(problem)
            }
        }
    }

    @Test func environmentCredentialsAndTheirExpiry() async throws {
        let ok = EnvironmentCredentialsProvider(environment: [
            "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SECURITY_TOKEN": "legacy",
        ])
        #expect(try await ok.credentials().credentials.sessionToken == "legacy")
        let expired = EnvironmentCredentialsProvider(environment: [
            "AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_CREDENTIAL_EXPIRATION": "2001-01-01T00:00:00Z",
        ])
        await #expect(throws: CredentialsError.self) { try await expired.credentials() }
        await #expect(throws: CredentialsError.self) { try await EnvironmentCredentialsProvider(environment: [:]).credentials() }
    }
}

/// A source that counts calls and can be told to fail; its credentials expire `lifetime`
/// seconds after `start` (the test's clock).
actor CountingSource: CredentialsProvider {
    var calls = 0
    var failing = false
    let lifetime: TimeInterval
    let start: TimeInterval

    init(lifetime: TimeInterval, start: TimeInterval) {
        self.lifetime = lifetime
        self.start = start
    }

    func setFailing(_ value: Bool) { failing = value }

    func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        calls += 1
        let number = calls
        if failing { throw .transport(service: "test", problem: "down") }
        return ExpiringCredentials(
            AWSCredentials(accessKeyId: "AKID\(number)", secretAccessKey: "SECRET\(number)"),
            expiration: Date(timeIntervalSince1970: start + lifetime))
    }
}

@Suite(.timeLimit(.minutes(5))) struct CachingProviderTests {
    /// Credentials that expire `lifetime` seconds after the test clock's 1,000,000.
    static func source(lifetime: Double) -> CountingSource { CountingSource(lifetime: lifetime, start: 1_000_000) }

    @Test func manyCallersShareOneRefreshAndNeverSeeATornPair() async throws {
        let source = Self.source(lifetime: 3600)
        let cache = CachingCredentialsProvider(source, clock: TimeSource { 1_000_000 })
        let pairs = try await withThrowingTaskGroup(of: AWSCredentials.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.credentials().credentials } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await source.calls == 1)
        #expect(pairs.allSatisfy { $0.accessKeyId == "AKID1" && $0.secretAccessKey == "SECRET1" })
    }

    @Test func theMandatoryWindowWaitsAndKeepsValidCredentialsOnATransportFailure() async throws {
        let source = Self.source(lifetime: 5 * 60)  // inside the mandatory window: every call refreshes
        let cache = CachingCredentialsProvider(source, clock: TimeSource { 1_000_000 })
        #expect(try await cache.credentials().credentials.accessKeyId == "AKID1")
        #expect(try await cache.credentials().credentials.accessKeyId == "AKID2")
        await source.setFailing(true)
        #expect(try await cache.credentials().credentials.accessKeyId == "AKID2")  // still valid for 5 min
        let expired = CachingCredentialsProvider(source, clock: TimeSource { 1_000_000 + 5 * 60 })
        await #expect(throws: CredentialsError.self) { try await expired.credentials() }
    }
}

/// STS and Cognito Identity against moto in server mode on 127.0.0.1.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct MotoCredentialTests {
    let http = CurlHTTPClient()

    @Test func assumeRoleThroughASourceProfile() async throws {
        let files = AWSFiles(
            credentials: "[base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base-secret\n",
            config: "[profile admin]\nrole_arn = arn:aws:iam::123456789012:role/admin\nsource_profile = base\nregion = us-east-1\n")
        let provider = ProfileCredentialsProvider(
            profile: "admin", environment: files.environment(["AWS_ENDPOINT_URL_STS": Peers.moto]), http: http)
        let resolved = try await provider.credentials()
        #expect(resolved.credentials.accessKeyId.hasPrefix("ASIA"))
        #expect(resolved.credentials.sessionToken?.isEmpty == false)
        #expect((resolved.expiration ?? .distantPast) > Date())
    }

    @Test func webIdentityFromAProfile() async throws {
        let files = AWSFiles()
        let tokenFile = files.folder + "/token"
        _ = FileManager.default.createFile(atPath: tokenFile, contents: Data("eyJ.web.identity".utf8))
        let config = "[profile web]\nrole_arn = arn:aws:iam::123456789012:role/web\nweb_identity_token_file = \(tokenFile)\n"
        try config.write(toFile: files.folder + "/config", atomically: true, encoding: .utf8)
        let resolved = try await ProfileCredentialsProvider(
            profile: "web", environment: files.environment(["AWS_ENDPOINT_URL_STS": Peers.moto]), http: http
        ).credentials()
        #expect(resolved.credentials.sessionToken != nil)
    }

    @Test func cognitoIdentityCredentialsSignACallTheVerifierAccepts() async throws {
        let setup = try #require(Peers.setup)
        let endpoint = ServiceEndpoint(url: Peers.moto)
        let unauthenticated = try CognitoIdentityCredentialsProvider(
            identityPoolId: setup.identityPoolId, region: "us-east-1", endpoint: endpoint, http: http)
        let signedIn = try CognitoIdentityCredentialsProvider(
            identityPoolId: setup.identityPoolId, region: "us-east-1",
            logins: ["cognito-idp.us-east-1.amazonaws.com/\(setup.userPoolId)": setup.idToken], endpoint: endpoint, http: http)
        for provider in [unauthenticated, signedIn] {
            let credentials = CachingCredentialsProvider(provider)
            let client = AuthorizedHTTPClient(
                transport: http,
                authorizer: IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api"))
            let request = try HTTPRequest(method: .get, wireURL: Peers.api + "/iam/cognito?x=1")
            let (response, sent) = try await client.send(request)
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(sent.request.headerFields[HTTPField.Name("x-amz-security-token")!] != nil)
        }
    }

    @Test func serviceErrorsAreTyped() async throws {
        let provider = try CognitoIdentityCredentialsProvider(
            identityPoolId: "us-east-1:00000000-0000-0000-0000-000000000000", region: "us-east-1",
            endpoint: ServiceEndpoint(url: Peers.moto), http: http)
        await #expect(throws: CredentialsError.self) { try await provider.credentials() }
    }
}

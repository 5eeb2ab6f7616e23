import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// A throwaway HOME with an AWS config holding SSO profiles, and the variables that point
/// MultiAuth and botocore at the IAM Identity Center stand-in.
struct SSOHome {
    static let startURL = "https://d-corp.awsapps.com/start"
    static let legacyStartURL = "https://d-legacy.awsapps.com/start"
    /// SHA-1 of the cache keys, computed with Python's hashlib: the AWS CLI's file names.
    static let corpCacheName = "ee0bfd2552fbd840c02cc48b6e823320543c450f.json"
    static let legacyCacheName = "76079c82af8bdf7e8bcf07e051b31cb670227b1d.json"
    let home: String

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-sso-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Data("""
            [profile dev]
            sso_session = corp
            sso_account_id = 123456789012
            sso_role_name = Admin
            region = eu-west-1

            [profile legacy]
            sso_start_url = \(Self.legacyStartURL)
            sso_region = us-east-1
            sso_account_id = 210987654321
            sso_role_name = ReadOnly

            [profile noaccount]
            sso_session = corp

            [sso-session corp]
            sso_start_url = \(Self.startURL)
            sso_region = us-east-1
            sso_registration_scopes = sso:account:access

            """.utf8).write(to: URL(fileURLWithPath: home + "/.aws/config"))
    }

    var environment: [String: String] {
        [
            "HOME": home, "AWS_CONFIG_FILE": home + "/.aws/config", "AWS_SHARED_CREDENTIALS_FILE": home + "/.aws/none",
            "AWS_ENDPOINT_URL_SSO_OIDC": Peers.sso, "AWS_ENDPOINT_URL_SSO": Peers.sso, "AWS_EC2_METADATA_DISABLED": "true",
            "BROWSER": "", "DISPLAY": "", "WAYLAND_DISPLAY": "",
        ]
    }

    var cacheFolder: String { home + "/.aws/sso/cache" }
    func cachePath(_ name: String = corpCacheName) -> String { cacheFolder + "/" + name }

    /// Writes a cache file as the AWS CLI would after a login, and tells the peer about its
    /// tokens (as if it had issued them). Returns the tokens.
    @discardableResult
    func cachedLogin(
        expiresIn: Double, registrationExpiresIn: Double = 30 * 86_400, name: String = corpCacheName, startURL: String = startURL,
        seedRefresh: Bool = true, assignments: [[String: Any]]? = nil
    ) async throws -> (access: String, refresh: String) {
        let id = UUID().uuidString.prefix(8)
        let access = "cached-access-\(id)", refresh = "cached-refresh-\(id)", client = "cached-client-\(id)"
        let stamp: (Double) -> String = { Date(timeIntervalSinceNow: $0).formatted(.iso8601) }
        let document: [String: String] = [
            "startUrl": startURL, "region": "us-east-1", "accessToken": access, "expiresAt": stamp(expiresIn),
            "clientId": client, "clientSecret": "cached-secret", "registrationExpiresAt": stamp(registrationExpiresIn),
            "refreshToken": refresh,
        ]
        try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: cachePath(name)))
        var seed: [String: Any] = [
            "clientId": client, "clientSecret": "cached-secret", "accessToken": access,
            "refreshToken": seedRefresh ? refresh : "never-" + refresh, "accessExpiresIn": max(expiresIn, 1),
        ]
        if let assignments { seed["assignments"] = assignments }
        _ = try await CurlHTTPClient().send(
            try HTTPRequest(method: .post, wireURL: Peers.sso + "/_peer/seed"), body: .bytes(Array(try JSONSerialization.data(withJSONObject: seed))))
        return (access, refresh)
    }

    func cache(_ name: String = corpCacheName) throws -> [String: String] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cachePath(name)))) as? [String: String] ?? [:]
    }

    func remove() { try? FileManager.default.removeItem(atPath: home) }

    /// How many CreateToken calls the peer has answered for `client`.
    static func tokenCalls(_ client: String?) async throws -> Int {
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: .get, wireURL: Peers.sso + "/_peer/stats"))
        return try JSONDecoder().decode([String: Int].self, from: Data(response.body))["/token \(client ?? "")"] ?? 0
    }

    /// The client id of the cached login.
    func cachedClient(_ name: String = corpCacheName) -> String? { try? cache(name)["clientId"] }
}

/// IAM Identity Center profiles against the stand-in (scripts/peers/sso_server.py), with
/// botocore's own session chain on the same HOME, files and endpoints in each test: the same
/// credentials, and one token cache shared both ways.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.sso.isEmpty && Peers.available, Peers.reason), .serialized) struct SSOCredentialsTests {
    static func botocore(_ environment: [String: String], profile: String = "dev") async throws -> [String: String] {
        try await Peers.oracle("scripts/oracles/botocore_session_credentials.py", environment: environment.merging(["AWS_PROFILE": profile]) { $1 })
    }

    static func ours(_ home: SSOHome, profile: String = "dev") async throws(CredentialsError) -> ExpiringCredentials {
        try await ProfileCredentialsProvider(profile: profile, environment: home.environment, http: CurlHTTPClient()).credentials()
    }

    @Test(arguments: ["dev", "legacy"]) func aCachedLoginGivesTheSameCredentialsAsBotocore(profile: String) async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let legacy = profile == "legacy"
        try await home.cachedLogin(
            expiresIn: 3600, name: legacy ? SSOHome.legacyCacheName : SSOHome.corpCacheName,
            startURL: legacy ? SSOHome.legacyStartURL : SSOHome.startURL)
        let before = try await SSOHome.tokenCalls(home.cachedClient(legacy ? SSOHome.legacyCacheName : SSOHome.corpCacheName))
        let ours = try await Self.ours(home, profile: profile)
        let reference = try await Self.botocore(home.environment, profile: profile)
        #expect(reference["method"] == "sso", "\(reference)")
        #expect(ours.credentials.accessKeyId == reference["access_key"] && ours.credentials.secretAccessKey == reference["secret_key"])
        let role = legacy ? "210987654321-ReadOnly" : "123456789012-Admin"
        #expect(ours.credentials.sessionToken?.hasPrefix("sso-session-token-\(role)-") == true)
        #expect(reference["token"]?.hasPrefix("sso-session-token-\(role)-") == true)
        #expect(try await SSOHome.tokenCalls(home.cachedClient(legacy ? SSOHome.legacyCacheName : SSOHome.corpCacheName)) == before, "no refresh with an hour left")
        #expect(ours.expiration.map { abs($0.timeIntervalSinceNow - 3600) < 60 } == true, "expiration is in milliseconds")
    }

    /// Two minutes left: we refresh through CreateToken, write the rotated tokens back, and
    /// botocore then uses our file without refreshing again.
    @Test func aLoginNearExpiryIsRefreshedAndBotocoreUsesOurCache() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let old = try await home.cachedLogin(expiresIn: 120)
        _ = try await Self.ours(home)
        let written = try home.cache()
        #expect(written["accessToken"] != old.access && written["refreshToken"] != old.refresh && written["clientId"]?.hasPrefix("cached-client-") == true)
        #expect(written["startUrl"] == SSOHome.startURL && written["region"] == "us-east-1")
        let attributes = try FileManager.default.attributesOfItem(atPath: home.cachePath())
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let before = try await SSOHome.tokenCalls(home.cachedClient())
        await #expect(try Self.botocore(home.environment)["method"] == "sso")
        #expect(try await SSOHome.tokenCalls(home.cachedClient()) == before)
        #expect(try home.cache()["accessToken"] == written["accessToken"])
    }

    /// The other way: botocore refreshes (rotating the refresh token); we use what it wrote.
    @Test func aCacheRefreshedByBotocoreIsUsedByUs() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let old = try await home.cachedLogin(expiresIn: 120)
        await #expect(try Self.botocore(home.environment)["method"] == "sso")
        let written = try home.cache()
        #expect(written["accessToken"] != old.access)
        let before = try await SSOHome.tokenCalls(home.cachedClient())
        #expect(try await Self.ours(home).credentials.accessKeyId == Peers.keyId)
        #expect(try await SSOHome.tokenCalls(home.cachedClient()) == before)
        #expect(try home.cache() == written)
    }

    @Test func anExpiredLoginThatCannotBeRefreshedNamesTheCommand() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try await home.cachedLogin(expiresIn: -60, registrationExpiresIn: -1)
        let original = try Data(contentsOf: URL(fileURLWithPath: home.cachePath()))
        let before = try await SSOHome.tokenCalls(home.cachedClient())
        await #expect {
            try await Self.ours(home)
        } throws: { error in
            guard case .ssoLoginNeeded(_, "multiauth login sso --profile dev")? = (error as? CredentialsError)?.kind else { return false }
            return !"\(error)".contains("cached-access")
        }
        #expect(try await SSOHome.tokenCalls(home.cachedClient()) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.cachePath())) == original)
        let run = try await CLI.run(["credentials", "--profile", "dev"], environment: home.environment)
        #expect(run.status == 1 && run.stderr.contains("run multiauth login sso --profile dev"), "\(run.stderr)")
        await #expect(try Self.botocore(home.environment)["error"] != nil)
    }

    /// A refresh the service refuses writes nothing; a token with time left is still used.
    @Test func aFailedRefreshWritesNothingAndKeepsAValidToken() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try await home.cachedLogin(expiresIn: 120, seedRefresh: false)
        let original = try Data(contentsOf: URL(fileURLWithPath: home.cachePath()))
        #expect(try await Self.ours(home).credentials.accessKeyId == Peers.keyId)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.cachePath())) == original)
    }

    @Test(arguments: ["not json", #"{"accessToken": "x"}"#, #"{"startUrl": "https://other.awsapps.com/start", "accessToken": "x", "expiresAt": "2099-01-01T00:00:00Z"}"#])
    func anUnusableCacheFileIsNamedAndLeftAlone(contents: String) async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try FileManager.default.createDirectory(atPath: home.cacheFolder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: home.cachePath()))
        await #expect {
            try await Self.ours(home)
        } throws: { error in
            guard case .ssoCache(let path, let problem)? = (error as? CredentialsError)?.kind else { return false }
            return path == home.cachePath() && (problem.contains("other.awsapps.com") || problem.contains("is not an SSO token cache"))
        }
        #expect(try String(contentsOfFile: home.cachePath(), encoding: .utf8) == contents)
    }

    @Test func noLoginAndIncompleteProfilesAreTyped() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        await #expect {
            try await Self.ours(home)
        } throws: { error in
            guard case .ssoLoginNeeded(let what, _)? = (error as? CredentialsError)?.kind else { return false }
            return what.contains(SSOHome.corpCacheName)
        }
        await #expect {
            try await Self.ours(home, profile: "noaccount")
        } throws: { error in
            guard case .incompleteProfile("noaccount", let problem)? = (error as? CredentialsError)?.kind else { return false }
            return problem.contains("sso_account_id")
        }
    }

    /// `multiauth request --auth iam` with nothing but an SSO profile and its cache.
    @Test func aSignedCallWithNothingButAnSSOProfile() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try await home.cachedLogin(expiresIn: 3600)
        let run = try await CLI.run(
            ["request", Peers.api + "/iam/sso", "--auth", "iam", "--service", "execute-api", "--fail"],
            environment: home.environment.merging(["AWS_PROFILE": "dev"]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        let authorization = try Peers.echo(run).headers.first { $0[0].lowercased() == "authorization" }?[1] ?? ""
        #expect(authorization.contains("Credential=\(Peers.keyId)/") && authorization.contains("/eu-west-1/execute-api/aws4_request"))
    }
}

/// `multiauth login sso`: the device authorization against the stand-in, whose wire format
/// botocore's own sso-oidc and sso clients accept in the same test; botocore then uses the
/// login we cached.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.sso.isEmpty && Peers.available, Peers.reason), .serialized) struct SSOLoginTests {
    @Test func thePeerSpeaksTheServicesWireFormatToBotocore() async throws {
        let result = try await Peers.oracle(
            "scripts/oracles/botocore_sso_device_flow.py", arguments: ["123456789012", "Admin", SSOHome.startURL],
            environment: ["AWS_ENDPOINT_URL_SSO_OIDC": Peers.sso, "AWS_ENDPOINT_URL_SSO": Peers.sso])
        #expect(result["error"] == nil, "\(result)")
        #expect(result["pending"] == "AuthorizationPendingException" && result["rotated"] == "True")
        #expect(result["reuse"] == "InvalidGrantException" && result["badToken"] == "UnauthorizedException")
        #expect(result["accessKeyId"] == Peers.keyId && result["sessionToken"]?.hasPrefix("sso-session-token-123456789012-Admin-") == true)
    }

    @Test(arguments: [["--profile", "dev"], ["--sso-session", "corp"]]) func aLoginIsCachedForBotocoreAndUs(selection: [String]) async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let run = try await CLI.run(["login", "sso", "--no-browser"] + selection, environment: home.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("enter the code ") && run.stderr.contains(SSOHome.corpCacheName))
        let cache = try home.cache()
        #expect(cache["startUrl"] == SSOHome.startURL && cache["clientId"]?.hasPrefix("client-") == true && cache["refreshToken"] != nil)
        #expect(!run.stderr.contains(cache["accessToken"] ?? "?") && !run.stdout.contains(cache["accessToken"] ?? "?"))
        let before = try await SSOHome.tokenCalls(home.cachedClient())
        let reference = try await SSOCredentialsTests.botocore(home.environment)
        #expect(reference["method"] == "sso" && reference["access_key"] == Peers.keyId, "\(reference)")
        #expect(try await SSOHome.tokenCalls(home.cachedClient()) == before, "a fresh login needs no refresh")
        #expect(try await SSOCredentialsTests.ours(home).credentials.accessKeyId == Peers.keyId)
    }

    @Test func aDeniedLoginWritesNothing() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let config = try String(contentsOfFile: home.home + "/.aws/config", encoding: .utf8)
        try Data((config + "[sso-session denied]\nsso_start_url = https://d-corp.awsapps.com/denied\nsso_region = us-east-1\n").utf8)
            .write(to: URL(fileURLWithPath: home.home + "/.aws/config"))
        let run = try await CLI.run(["login", "sso", "--no-browser", "--sso-session", "denied"], environment: home.environment)
        #expect(run.status == 3 && run.stderr.contains("AccessDeniedException"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.cacheFolder))
    }

    /// A login against a start URL whose suffix makes the stand-in answer `how`.
    func hostileLogin(_ how: String, environment: [String: String] = [:]) async throws -> (CLI.Run, SSOHome) {
        let home = try SSOHome()
        let config = try String(contentsOfFile: home.home + "/.aws/config", encoding: .utf8)
        try Data((config + "[sso-session odd]\nsso_start_url = https://d-corp.awsapps.com/\(how)\nsso_region = us-east-1\n").utf8)
            .write(to: URL(fileURLWithPath: home.home + "/.aws/config"))
        let run = try await CLI.run(
            ["login", "sso", "--sso-session", "odd"], environment: home.environment.merging(environment) { $1 }, limit: 60)
        return (run, home)
    }

    /// A server's `file:` URL never reaches the browser, and its terminal escapes are shown
    /// escaped; the login itself still succeeds.
    @Test func aHostileVerificationURLIsNeitherOpenedNorPrintedRaw() async throws {
        let (run, opened) = try await loginWithBrowser("hostile-uri")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1b}") && run.stderr.contains("\\u{1b}"), "\(run.stderr)")
        #expect(run.stderr.contains("not opening file:///etc/passwd"), "\(run.stderr)")
        #expect(opened == nil)
    }

    /// A login through a `$BROWSER` that writes down its arguments: the run, and what was
    /// opened (nil when the browser never ran).
    func loginWithBrowser(_ how: String) async throws -> (CLI.Run, String?) {
        let folder = try ScratchFolder("browser")
        defer { folder.remove() }
        let browser = try folder.script("browser", "printf '%s\\n' \"$@\" >> \(folder.path)/opened")
        let (run, home) = try await hostileLogin(how, environment: ["BROWSER": browser])
        home.remove()
        return (run, try? String(contentsOfFile: folder.path + "/opened", encoding: .utf8))
    }

    /// A good verification URL goes to `$BROWSER` as its one argument, and the browser is
    /// started before the login goes on.
    @Test func theVerificationURLIsOpenedInTheBrowser() async throws {
        let (run, read) = try await loginWithBrowser("plain")
        #expect(run.status == 0, "\(run.stderr)")
        let opened = try #require(read, "the browser never ran: \(run.stderr)")
        #expect(opened.hasPrefix("http://127.0.0.1:") && opened.contains("user_code=") && opened.split(separator: "\n").count == 1, "\(opened)")
    }

    @Test func anAlreadyExpiredTokenIsRefusedAndNotCached() async throws {
        let (run, home) = try await hostileLogin("expired-token")
        defer { home.remove() }
        #expect(run.status == 5 && run.stderr.contains("already expired"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.cacheFolder))
    }

    @Test func anAbsurdPollIntervalIsNamedAtOnce() async throws {
        let (run, home) = try await hostileLogin("slow-interval")
        defer { home.remove() }
        #expect(run.status == 5 && run.stderr.contains("9999 s between polls"), "\(run.stderr)")
        #expect(run.seconds < 20)
    }

    @Test func aProfileWithoutSSOIsAUsageError() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let run = try await CLI.run(["login", "sso", "--profile", "missing"], environment: home.environment)
        #expect(run.status == 2 && run.stderr.contains("profile 'missing' has no sso_session or sso_start_url"), "\(run.stderr)")
    }
}

import Foundation
import IntegrationSupport
import MultiAuthCachedSessions
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthStore
import Testing

/// Many processes at once on a spent SAML session or an expired SSO login (a build tool running
/// a hundred `credential_process` calls): one browser signs in, under a lock, and the others
/// use its session; when that sign-in fails, the others fail too instead of opening browsers.
/// The browsers are counted by the `$BROWSER` script (scripts/peers/saml_browser.py for SAML;
/// for SSO a script that only counts, as the IAM Identity Center stand-in approves by itself).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable && Peers.oidcAvailable && !Peers.sso.isEmpty, Peers.reason))
struct ConcurrentSignInTests {
    /// A session saved by an earlier sign-in that has expired, written through the library
    /// with a clock an hour back (no waiting).
    static func spend(_ setup: SAMLLoginTests.Setup, name: String) async throws {
        let store = CredentialStore(path: setup.folder.path + "/store", keySource: .keyFile(path: setup.folder.path + "/key"))
        let anHourAgo = TimeSource { Date().timeIntervalSince1970 - 3_600 }
        let spent = SAMLSignInResult(
            credentials: ExpiringCredentials(
                AWSCredentials(accessKeyId: "ASIASPENT", secretAccessKey: "spent", sessionToken: "spent"), expiration: Date(timeIntervalSinceNow: -60),
                source: "STS AssumeRoleWithSAML"),
            assertionID: "_spent")
        let settings = SAMLSignInSettings(
            idpURL: Peers.oidcIssuer + "/saml/sso", role: SAMLRole(roleArn: SAMLLoginTests.developer, principalArn: SAMLLoginTests.provider),
            durationSeconds: nil, region: "us-east-1", metadata: setup.metadata)
        try await SAMLSessions(store: store, clock: anHourAgo).save(spent, settings: settings, name: name)
        try Data("[profile team]\nsaml_session = \(name)\n".utf8).write(to: setup.folder.url.appendingPathComponent("config"))
    }

    /// `count` runs of `multiauth credentials --profile PROFILE --format process` started
    /// together (by xargs) in `folder`; their exit statuses and outputs.
    static func runTogether(
        _ count: Int, profile: String, in folder: String, _ arguments: [String] = [], environment: [String: String]
    ) async throws -> [(status: Int32, stdout: String, stderr: String)] {
        let command = ([Paths.multiauth.path, "credentials", "--profile", profile, "--format", "process", "--max-time", "120"] + arguments)
            .joined(separator: " ")
        // xargs reaps with blocking waits: a shell's `wait` can hang on a signal mask inherited from the test runner.
        let script = folder + "/together"
        try Data("#!/bin/sh\nseq \(count) | xargs -P \(count) -I N sh -c '\(command) >\"$1/out.N\" 2>\"$1/err.N\"; echo $? >\"$1/status.N\"' - \"$1\"\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = try await offPool { try ChildProcess.run(URL(fileURLWithPath: script), [folder], environment: environment, limit: 240) }
        return (1...count).map { index in
            let read = { (name: String) in (try? String(contentsOfFile: "\(folder)/\(name).\(index)", encoding: .utf8)) ?? "" }
            return (Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, read("out"), read("err"))
        }
    }

    static func runTogether(_ count: Int, _ setup: SAMLLoginTests.Setup, _ more: [String: String] = [:]) async throws -> [(status: Int32, stdout: String, stderr: String)] {
        try await runTogether(count, profile: "team", in: setup.folder.path, setup.store, environment: setup.environment(more))
    }

    static func accessKeys(_ runs: [(status: Int32, stdout: String, stderr: String)]) -> Set<String> {
        Set(runs.map { (try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8)) as? [String: Any])?["AccessKeyId"] as? String ?? "none" })
    }

    /// A hundred runs open one browser and all print the one new session.
    @Test func aHundredRunsOnASpentSessionOpenOneBrowser() async throws {
        let setup = try await SAMLLoginTests.Setup()
        defer { setup.folder.remove() }
        try await Self.spend(setup, name: "team")
        let runs = try await Self.runTogether(100, setup)
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map { "\($0.status) \($0.stderr)" } ?? "")")
        let keys = Self.accessKeys(runs)
        #expect(keys.count == 1 && keys.first?.hasPrefix("ASIA") == true && !keys.contains("ASIASPENT"), "\(keys)")
        #expect(setup.browsersOpened == 1, "browsers opened: \(setup.browsersOpened)")
    }

    /// The one sign-in fails (the browser posts a tampered response): every run fails with
    /// that reason, one browser was opened, and the spent session is still what is kept.
    @Test func whenTheOneSignInFailsTheOthersFailWithoutABrowser() async throws {
        let setup = try await SAMLLoginTests.Setup()
        defer { setup.folder.remove() }
        try await Self.spend(setup, name: "team")
        let runs = try await Self.runTogether(30, setup, ["SAML_BROWSER_MODE": "tamper"])
        #expect(runs.allSatisfy { $0.status != 0 && $0.stderr.contains("signing in again for the SAML session team failed") && $0.stdout.isEmpty },
                "\(runs.first.map { "\($0.status) \($0.stderr)" } ?? "")")
        #expect(setup.browsersOpened == 1, "browsers opened: \(setup.browsersOpened)")
    }

    /// An SSO login that expired and cannot be refreshed: a hundred runs open one browser,
    /// make one device authorization, and all print the one role session.
    @Test func aHundredRunsOnAnExpiredSSOLoginOpenOneBrowser() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try await home.cachedLogin(expiresIn: -60, registrationExpiresIn: -1)
        let browser = try Self.countingBrowser(in: home.home)
        let runs = try await Self.runTogether(100, profile: "dev", in: home.home, environment: home.environment.merging(["BROWSER": browser]) { $1 })
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map { "\($0.status) \($0.stderr)" } ?? "")")
        let keys = Self.accessKeys(runs)
        #expect(keys.count == 1 && !keys.contains("none"), "\(keys)")
        #expect(Self.opened(in: home.home) == 1)
        #expect(try home.cache()["accessToken"]?.hasPrefix("cached-access") == false, "the new login is cached")
    }

    /// The one SSO sign-in is denied: one browser, one run reporting the denial, and the rest
    /// failing with it without a browser of their own.
    @Test func aDeniedSSOSignInFailsEveryRunWithOneBrowser() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let config = try String(contentsOfFile: home.home + "/.aws/config", encoding: .utf8)
        try Data((config + "[profile refused]\nsso_session = refused\nsso_account_id = 123456789012\nsso_role_name = Admin\n"
            + "[sso-session refused]\nsso_start_url = https://d-corp.awsapps.com/denied\nsso_region = us-east-1\n").utf8)
            .write(to: URL(fileURLWithPath: home.home + "/.aws/config"))
        let browser = try Self.countingBrowser(in: home.home)
        let runs = try await Self.runTogether(30, profile: "refused", in: home.home, environment: home.environment.merging(["BROWSER": browser]) { $1 })
        #expect(runs.allSatisfy { $0.status != 0 && $0.stdout.isEmpty })
        #expect(runs.filter { $0.stderr.contains("AccessDeniedException") && !$0.stderr.contains("another process") }.count == 1)
        #expect(runs.filter { $0.stderr.contains("failed in another process") }.count == 29, "\(runs.map(\.stderr).prefix(2))")
        #expect(Self.opened(in: home.home) == 1)
    }

    static func countingBrowser(in folder: String) throws -> String {
        let path = folder + "/browser"
        try Data("#!/bin/sh\necho opened >>\"\(folder)/opened\"\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    static func opened(in folder: String) -> Int {
        ((try? String(contentsOfFile: folder + "/opened", encoding: .utf8)) ?? "").split(separator: "\n").count
    }
}

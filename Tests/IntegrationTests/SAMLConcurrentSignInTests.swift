import Foundation
import MultiAuthCachedSessions
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthStore
import Testing

/// Many processes at once on a spent SAML session (a build tool running a hundred
/// `credential_process` calls): one browser signs in, under the store's lock, and the others
/// use its session; when that sign-in fails, the others fail too instead of opening browsers.
/// The browsers are counted by the scripted `$BROWSER` (scripts/peers/saml_browser.py).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.stsAvailable && Peers.oidcAvailable, Peers.reason)) struct SAMLConcurrentSignInTests {
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

    /// `count` runs of `multiauth credentials --profile team --format process` started together
    /// by one shell; their exit statuses and outputs.
    static func runTogether(_ count: Int, _ setup: SAMLLoginTests.Setup, _ more: [String: String] = [:]) async throws -> [(status: Int32, stdout: String, stderr: String)] {
        let command = ([Paths.multiauth.path, "credentials", "--profile", "team", "--format", "process", "--max-time", "120"] + setup.store).joined(separator: " ")
        // xargs reaps with blocking waits: a shell's `wait` can hang on a signal mask inherited from the test runner.
        let script = try setup.folder.script("together", """
            seq \(count) | xargs -P \(count) -I N sh -c '\(command) >"$1/out.N" 2>"$1/err.N"; echo $? >"$1/status.N"' - "$1"
            """)
        let folder = setup.folder.path
        let environment = ProcessInfo.processInfo.environment.merging(setup.environment(more)) { $1 }
        _ = try await offPool { try ChildProcess.run(URL(fileURLWithPath: script), [folder], environment: environment, limit: 240) }
        return (1...count).map { index in
            let read = { (name: String) in (try? String(contentsOfFile: "\(folder)/\(name).\(index)", encoding: .utf8)) ?? "" }
            return (Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, read("out"), read("err"))
        }
    }

    /// A hundred runs open one browser and all print the one new session.
    @Test func aHundredRunsOnASpentSessionOpenOneBrowser() async throws {
        let setup = try await SAMLLoginTests.Setup()
        defer { setup.folder.remove() }
        try await Self.spend(setup, name: "team")
        let runs = try await Self.runTogether(100, setup)
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map { "\($0.status) \($0.stderr)" } ?? "")")
        let keys = Set(runs.map { (try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8)) as? [String: Any])?["AccessKeyId"] as? String ?? "none" })
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
}

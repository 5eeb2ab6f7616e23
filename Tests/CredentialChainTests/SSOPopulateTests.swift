import Foundation
import IntegrationSupport
import MultiAuthCredentials
import MultiAuthCurl
import Testing

/// `multiauth sso populate` against the IAM Identity Center stand-in, whose ListAccounts and
/// ListAccountRoles botocore's own `sso` client reads in the same test; botocore then
/// resolves and signs with a profile it wrote.
@Suite(.timeLimit(.minutes(5)), .enabled(if: !Peers.sso.isEmpty && Peers.available && !Peers.api.isEmpty, Peers.reason))
struct SSOPopulateTests {
    /// The stand-in's DEFAULT_ASSIGNMENTS, named by the default template by hand: lower-cased,
    /// anything but ASCII letters, digits, '.', '_' and '-' made '-', runs of '-' made one.
    static let defaultNames = ["dev-sandbox-developer", "n-code-co-readonly", "production-web-administratoraccess", "production-web-readonly"]

    static func populate(_ home: SSOHome, _ extra: [String] = []) async throws -> CLI.Run {
        try await CLI.run(["sso", "populate", "--sso-session", "corp"] + extra, environment: home.environment)
    }

    static func config(_ home: SSOHome) throws -> String { try String(contentsOfFile: home.home + "/.aws/config", encoding: .utf8) }

    static func backups(_ home: SSOHome) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: home.home + "/.aws").filter { $0.hasPrefix("config.multiauth-backup-") }
    }

    @Test func theStandInListsWhatBotocoreReadsAndOursReadsTheSame() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let (access, _) = try await home.cachedLogin(expiresIn: 3600)
        let botocore = try await Peers.oracle("scripts/oracles/botocore_sso_assignments.py", arguments: [access], environment: home.environment)
        let configuration = SSOSessionConfiguration(sessionName: "corp", startURL: SSOHome.startURL, region: "us-east-1")
        let ours = try await SSOAssignments(configuration: configuration, loginCommand: "x", environment: home.environment, http: CurlHTTPClient()).list()
        let expected = "111111111111/Production Web/AdministratorAccess;111111111111/Production Web/ReadOnly;222222222222/dev sandbox/Developer;333333333333/Ünïcode & Co/ReadOnly"
        #expect(botocore["assignments"] == expected, "\(botocore)")
        #expect(ours.map { "\($0.accountId)/\($0.accountName)/\($0.roleName)" }.sorted().joined(separator: ";") == expected)
    }

    @Test func aSecondRunWritesTheSameFileAndBotocoreSignsWithAPopulatedProfile() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        try await home.cachedLogin(expiresIn: 3600)
        let before = try Self.config(home)
        let first = try await Self.populate(home, ["--region", "eu-west-1", "--output", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        let names: [String] = first.stdout.split(separator: "\n").map { String($0) }
        #expect(names == Self.defaultNames)
        let written = try Self.config(home)
        #expect(written.hasPrefix(before), "every line that was there stays as it was")
        #expect(written.contains("""
            [profile dev-sandbox-developer]
            # written by multiauth sso populate for sso-session corp
            sso_session = corp
            sso_account_id = 222222222222
            sso_role_name = Developer
            region = eu-west-1
            output = json
            """))
        #expect(try Self.backups(home).count == 1)
        let second = try await Self.populate(home, ["--region", "eu-west-1", "--output", "json"])
        #expect(second.status == 0 && second.stderr.contains("4 unchanged"), "\(second.stderr)")
        #expect(try Self.config(home) == written)
        #expect(try Self.backups(home).count == 1, "nothing changed, so nothing was written")

        let credentials = try await Peers.oracle(
            "scripts/oracles/botocore_session_credentials.py", environment: home.environment.merging(["AWS_PROFILE": "dev-sandbox-developer"]) { $1 })
        #expect(credentials["method"] == "sso", "\(credentials)")
        let signed = try await Peers.python("scripts/oracles/signed_call.py", [
            "--signer", "botocore", "--url", Peers.api + "/iam/populated", "--key", credentials["access_key"] ?? "",
            "--secret", credentials["secret_key"] ?? "", "--header", "X-Amz-Security-Token: \(credentials["token"] ?? "")",
        ])
        #expect(signed.contains(#""status": 200"#), "\(signed)")
    }

    @Test func onlyItsOwnProfilesAreRewrittenAndPrunedOnlyWhenAsked() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let mine = "[profile production-web-readonly]\nregion = us-west-2\n"
        try Data((try Self.config(home) + mine).utf8).write(to: URL(fileURLWithPath: home.home + "/.aws/config"))
        try await home.cachedLogin(expiresIn: 3600)
        let first = try await Self.populate(home)
        #expect(first.status == 0 && first.stderr.contains("'production-web-readonly' exists and was not written by sso populate"), "\(first.stderr)")
        #expect(try Self.config(home).contains(mine))
        // The portal no longer lists the sandbox account.
        try await home.cachedLogin(expiresIn: 3600, assignments: [
            ["accountId": "111111111111", "accountName": "Production Web", "roles": ["AdministratorAccess", "ReadOnly"]],
            ["accountId": "333333333333", "accountName": "Ünïcode & Co", "roles": ["ReadOnly"]],
        ])
        let kept = try await Self.populate(home)
        #expect(kept.status == 0 && kept.stderr.contains("no longer listed, kept: dev-sandbox-developer"), "\(kept.stderr)")
        #expect(try Self.config(home).contains("[profile dev-sandbox-developer]"))
        let pruned = try await Self.populate(home, ["--prune"])
        #expect(pruned.status == 0 && pruned.stderr.contains("pruned (dev-sandbox-developer)"), "\(pruned.stderr)")
        let text = try Self.config(home)
        #expect(!text.contains("dev-sandbox") && text.contains(mine) && text.contains("[profile dev]") && text.contains("[sso-session corp]"))
    }

    @Test func faultsAreNamed() async throws {
        let home = try SSOHome()
        defer { home.remove() }
        let unknown = try await CLI.run(["sso", "populate", "--sso-session", "nope"], environment: home.environment)
        #expect(unknown.status != 0 && unknown.stderr.contains("--sso-session") && unknown.stderr.contains("nope"), "\(unknown.stderr)")
        let noLogin = try await Self.populate(home)
        #expect(noLogin.status != 0 && noLogin.stderr.contains("multiauth login sso --sso-session corp"), "\(noLogin.stderr)")
        try await home.cachedLogin(expiresIn: 3600)
        let template = try await Self.populate(home, ["--name", "{account}-{role_name}"])
        #expect(template.status != 0 && template.stderr.contains("--name") && template.stderr.contains("unknown placeholder {account}"), "\(template.stderr)")
        #expect(try Self.backups(home).isEmpty, "no fault wrote the file")
    }
}

import Foundation
import MultiAuthCredentials
import Testing

/// `sso populate`'s text changes, on config files written by hand.
struct PopulatedProfilesTests {
    static let writer = PopulatedProfiles(session: "corp", region: nil, output: nil)
    static let admin = SSOAssignments.Assignment(accountId: "111111111111", accountName: "Prod", roleName: "Admin")
    static let reader = SSOAssignments.Assignment(accountId: "222222222222", accountName: "Prod", roleName: "Admin")

    @Test func namesFollowTheTemplateAndCollisionsTakeTheAccountID() throws {
        let profiles = try Self.writer.profiles([Self.admin, Self.reader], template: "{account_name}-{role_name}")
        #expect(profiles.map(\.name) == ["prod-admin-111111111111", "prod-admin-222222222222"])
        let spaced = SSOAssignments.Assignment(accountId: "3", accountName: "  Data  Lake (EU) ", roleName: "Power.User_1")
        #expect(try Self.writer.profiles([spaced], template: "{sso_session}/{account_name}:{role_name}").map(\.name) == ["corp-data-lake-eu-power.user_1"])
        #expect(throws: PopulateError.template("unknown placeholder {role}")) { try Self.writer.profiles([Self.admin], template: "{role}") }
        #expect(throws: PopulateError.self) { try Self.writer.profiles([Self.admin], template: "{account_name") }
    }

    @Test func itsSectionsAreAppendedOnceAndOthersKeptByteForByte() throws {
        let original = "# my settings\n[default]\nregion = us-east-1\n\n[profile prod-admin]\nregion = eu-west-3\n"
        let profiles = [PopulatedProfiles.Profile(name: "prod-admin", assignment: Self.admin), PopulatedProfiles.Profile(name: "prod-view", assignment: Self.reader)]
        let (text, report) = Self.writer.merged(into: original, profiles: profiles, prune: false)
        #expect(report.skipped == ["prod-admin"] && report.written == ["prod-view"])
        #expect(text == original + """

            [profile prod-view]
            # written by multiauth sso populate for sso-session corp
            sso_session = corp
            sso_account_id = 222222222222
            sso_role_name = Admin

            """)
        let (again, second) = Self.writer.merged(into: text, profiles: profiles, prune: false)
        #expect(again == text && second.unchanged == ["prod-view"] && second.written.isEmpty)
    }

    @Test func aSectionOfAnotherSessionIsNeverPruned() throws {
        let other = PopulatedProfiles(session: "other", region: nil, output: nil)
        let (text, _) = other.merged(into: "", profiles: [PopulatedProfiles.Profile(name: "x", assignment: Self.admin)], prune: false)
        let (pruned, report) = Self.writer.merged(into: text, profiles: [], prune: true)
        #expect(pruned == text && report.pruned.isEmpty)
        let (ownText, _) = Self.writer.merged(into: text, profiles: [PopulatedProfiles.Profile(name: "y", assignment: Self.admin)], prune: false)
        let (emptied, ownReport) = Self.writer.merged(into: ownText, profiles: [], prune: true)
        #expect(ownReport.pruned == ["y"] && emptied.hasPrefix(text.trimmingCharacters(in: .newlines)) && !emptied.contains("[profile y]"))
    }
}

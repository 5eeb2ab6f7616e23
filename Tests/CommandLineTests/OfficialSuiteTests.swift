import Foundation
import IntegrationSupport
import MultiAuthSigningVectors
import Testing

/// Every case of both official suites, at every stage, in header and query mode.
/// Each case is its own test, so a failure names the case and prints the diff.
@Suite(.timeLimit(.minutes(5))) struct OfficialSuiteTests {
    static func cases(_ folder: URL) -> [VectorCase] {
        (try? VectorLoader.loadCases(in: folder.path)) ?? []
    }

    static let v4 = cases(Paths.sharedSuite.appendingPathComponent("v4"))
    static let v4a = cases(Paths.sharedSuite.appendingPathComponent("v4a")).filter { $0.skipReason == nil }
    static let botocore = cases(Paths.botocoreSuite)
    static let derived = cases(Paths.derived)

    @Test(
        "aws-c-auth v4 suite (MULTIAUTH_SIGNING_SUITES)",
        .enabled(if: Paths.exists(Paths.sharedSuite), "the AWS signing suites are not present (MULTIAUTH_SIGNING_SUITES)"),
        arguments: v4.map(\.name))
    func awsCAuthV4(name: String) throws {
        try check(Self.v4, name)
    }

    @Test(
        "aws-c-auth v4a suite (MULTIAUTH_SIGNING_SUITES): canonical stages exact, signatures verified with public-key.json",
        .enabled(if: Paths.exists(Paths.sharedSuite), "the AWS signing suites are not present (MULTIAUTH_SIGNING_SUITES)"),
        arguments: v4a.map(\.name))
    func awsCAuthV4a(name: String) throws {
        try check(Self.v4a, name)
    }

    @Test("botocore aws4_testsuite (vectors/, from scripts/vectors)", arguments: botocore.map(\.name))
    func botocoreSuite(name: String) throws {
        try check(Self.botocore, name)
    }

    @Test("project-derived cases (vectors/derived)", arguments: derived.map(\.name))
    func derivedCases(name: String) throws {
        try check(Self.derived, name)
    }

    @Test func suitesArePresentAndComplete() throws {
        #expect(Paths.exists(Paths.botocoreSuite), "vectors/aws4_testsuite is missing: run scripts/vectors")
        #expect(Self.botocore.count == 34)
        #expect(Self.botocore.allSatisfy { $0.skipReason == nil })
        #expect(Self.derived.count >= 5)
        if Paths.exists(Paths.sharedSuite) {
            #expect(Self.v4.count == 38)
            #expect(Self.v4.allSatisfy { $0.skipReason == nil })
            #expect(Self.v4a.count == 38)
        }
    }

    private func check(_ cases: [VectorCase], _ name: String) throws {
        let vector = try #require(cases.first { $0.name == name })
        let outcome = VectorRunner.run(vector)
        #expect(outcome.skipReason == nil)
        #expect(outcome.checks.count >= 4)
        for failure in outcome.failures {
            Issue.record("\(name): \(failure.check.rawValue)\n\(failure.diff)")
        }
    }
}

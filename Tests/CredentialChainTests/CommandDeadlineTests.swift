import Foundation
import IntegrationSupport
import Testing

/// `--max-time` bounds the whole command, whatever the credential source is waiting on: a
/// credential_process that never ends, a container endpoint that never answers, one that
/// answers a byte a second. Each used to outlive the limit (30 s, 92 s, past a 60 s kill).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.faultAvailable, Peers.reason))
struct CommandDeadlineTests {
    static let isolated = [
        "AWS_EC2_METADATA_DISABLED": "true", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_PROFILE": "",
    ]

    /// `credentials --max-time 2` with `environment`: exit 28 within a few seconds.
    func expectBounded(_ environment: [String: String], arguments: [String] = []) async throws {
        let run = try await CLI.run(
            ["credentials", "--max-time", "2"] + arguments, environment: Self.isolated.merging(environment) { $1 }, limit: 60)
        #expect(run.status == 28, "\(run.status): \(run.stderr)")
        #expect(run.seconds < 8, "took \(run.seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("--max-time"), "\(run.stderr)")
    }

    @Test func aCredentialProcessThatNeverEnds() async throws {
        let files = try SharedFiles(config: "[profile stuck]\ncredential_process = sleep 1000\n")
        defer { files.remove() }
        try await expectBounded(["AWS_CONFIG_FILE": files.config], arguments: ["--profile", "stuck"])
    }

    @Test func aContainerEndpointThatNeverAnswers() async throws {
        try await expectBounded(["AWS_CONFIG_FILE": "/nonexistent", "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.fault + "/hang/"])
    }

    @Test func aContainerEndpointThatTrickles() async throws {
        try await expectBounded(["AWS_CONFIG_FILE": "/nonexistent", "AWS_CONTAINER_CREDENTIALS_FULL_URI": Peers.fault + "/trickle/300"])
    }
}

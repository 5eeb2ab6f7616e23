import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth credentials`: which source of the default chain answers, and what it gave.
struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Show which source of the default credential chain answers, the access key id, the expiry and the region (never the secret or token).",
        discussion: "--format process prints the credential_process JSON instead (secret and token included), so other tools can use MultiAuth's chain: credential_process = multiauth credentials --format process")
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, process }

    @Option(help: "The shared-file profile (default: AWS_PROFILE, else the chain from the environment on).") var profile: String?
    @Option(help: "The region to report (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, then the instance's).", transform: regionArgument) var region: String?
    @Option(help: "text (default) or process.") var format: Format = .text
    @Option(help: "Time limit in seconds, credential_process, STS calls and typing an MFA code included; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds
    @OptionGroup var sessions: ProfileSessionOptions
    @OptionGroup var store: StoreOptions

    func validate() throws { try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600) }

    func run() async throws {
        let value = try await ChainCredentials.resolve(sessions.chain(profile: profile, store: store), maxTime: maxTime)
        switch format {
        case .text:
            let region = try await resolvedRegion()
            FileHandleless.writeStandardOutput(Array(summary(value, region: region).utf8))
        case .process: FileHandleless.writeStandardOutput(try Self.processJSON(value) + [0x0a])
        }
    }

    private func summary(_ value: ExpiringCredentials, region: String?) -> String {
        let expiry = value.expiration.map { TokenCommand.isoTime(Int64($0.timeIntervalSince1970)) } ?? "never"
        return """
            source: \(value.source)
            access key id: \(value.credentials.accessKeyId)
            session token: \(value.credentials.sessionToken == nil ? "none" : "present")
            expires: \(expiry)
            region: \(region ?? "none")

            """
    }

    private func resolvedRegion() async throws -> String? { try await ChainCredentials.region(region, profile: profile) }

    /// The JSON a `credential_process` prints: Version 1, the keys, the token and the expiry.
    static func processJSON(_ value: ExpiringCredentials) throws -> [UInt8] {
        struct Output: Encodable {
            let Version = 1
            let AccessKeyId: String, SecretAccessKey: String, SessionToken: String?, Expiration: String?
        }
        let output = Output(
            AccessKeyId: value.credentials.accessKeyId, SecretAccessKey: value.credentials.secretAccessKey,
            SessionToken: value.credentials.sessionToken,
            Expiration: value.expiration.map { TokenCommand.isoTime(Int64($0.timeIntervalSince1970)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(output))
    }
}

import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `rds-token` and `eks-token` share: the credentials of the default chain (or a
/// profile), the region, and the signing time.
struct PresignedTokenOptions: ParsableArguments {
    @Option(help: "The shared-file profile (default: AWS_PROFILE, else the chain from the environment on).") var profile: String?
    @Option(help: "The region (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, then the instance's).", transform: regionArgument)
    var region: String?
    @Option(help: "Signing time, YYYYMMDDTHHMMSSZ (default: now; for tests).") var date: String?
    @Option(help: "Time limit in seconds for resolving credentials; exit 28 when it passes.") var maxTime: Double = CommandTimeout.defaultSeconds
    @OptionGroup var sessions: ProfileSessionOptions
    @OptionGroup var store: StoreOptions

    func validate() throws { try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600) }

    /// The credentials, the region and the time to sign with.
    func resolve() async throws -> (AWSCredentials, String, SigningDate) {
        let (expiring, region, date) = try await resolveExpiring()
        return (expiring.credentials, region, date)
    }

    /// The chain itself (for a provider that asks it when it needs to) and the region.
    func resolveChain() async throws -> (any CredentialsProvider, String) {
        guard let resolved = try await ChainCredentials.region(region, profile: profile) else {
            throw CLIError("--region", "no region: give --region or set AWS_REGION")
        }
        return (sessions.chain(profile: profile, store: store), resolved)
    }

    /// The credentials with their expiry, the region and the time to sign with.
    func resolveExpiring() async throws -> (ExpiringCredentials, String, SigningDate) {
        var signingDate = SigningDate.now()
        if let date {
            do throws(SigningError) { signingDate = try SigningDate(parsing: date) } catch { throw CLIError("--date", error) }
        }
        let credentials = try await ChainCredentials.resolve(sessions.chain(profile: profile, store: store), maxTime: maxTime)
        guard let resolved = try await ChainCredentials.region(region, profile: profile) else {
            throw CLIError("--region", "no region: give --region or set AWS_REGION")
        }
        return (credentials, resolved, signingDate)
    }
}

/// `multiauth rds-token`: an RDS IAM database authentication token, as
/// `aws rds generate-db-auth-token` prints it.
struct RDSTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rds-token",
        abstract: "Print an RDS IAM database authentication token (a presigned URL for rds-db, valid 15 minutes), as aws rds generate-db-auth-token does.")

    @Option(help: "The database host name.") var hostname: String
    @Option(help: "The database port.") var port: Int
    @Option(help: "The database user.") var username: String
    @OptionGroup var options: PresignedTokenOptions

    func run() async throws {
        let (credentials, region, date) = try await options.resolve()
        let token: String
        do {
            token = try PresignedTokens.rdsAuthToken(
                credentials: credentials, region: region, hostname: hostname, port: port, username: username, date: date)
        } catch { throw CLIError("--hostname", error) }
        FileHandleless.writeStandardOutput(Array((token + "\n").utf8))
    }
}

/// `multiauth eks-token`: a kubectl `ExecCredential` holding an EKS token, as
/// `aws eks get-token` prints it; usable as a kubeconfig exec plugin.
struct EKSTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eks-token",
        abstract: "Print a kubectl ExecCredential with an EKS token (a presigned STS GetCallerIdentity URL), as aws eks get-token does.")

    @Option(help: "The EKS cluster's name.") var clusterName: String
    @OptionGroup var options: PresignedTokenOptions

    func run() async throws {
        let (credentials, region, date) = try await options.resolve()
        let token: String
        do { token = try PresignedTokens.eksToken(credentials: credentials, region: region, clusterName: clusterName, date: date) } catch {
            throw CLIError("--cluster-name", error)
        }
        let output = ExecCredential(
            apiVersion: Self.apiVersion(ProcessInfo.processInfo.environment["KUBERNETES_EXEC_INFO"]),
            status: .init(expirationTimestamp: TokenCommand.isoTime(date.secondsSince1970 + PresignedTokens.eksTokenLifetime), token: token))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        FileHandleless.writeStandardOutput(Array(try encoder.encode(output)) + [0x0a])
    }

    /// The apiVersion kubectl asks for in `KUBERNETES_EXEC_INFO`, else `v1beta1`.
    static func apiVersion(_ execInfo: String?) -> String {
        struct Info: Decodable { let apiVersion: String }
        let asked = execInfo.flatMap { try? JSONDecoding.decode(Info.self, from: $0, what: "KUBERNETES_EXEC_INFO").apiVersion }
        return asked.flatMap { $0.hasPrefix("client.authentication.k8s.io/") ? $0 : nil } ?? "client.authentication.k8s.io/v1beta1"
    }

    struct ExecCredential: Encodable {
        struct Status: Encodable {
            let expirationTimestamp: String
            let token: String
        }
        let kind = "ExecCredential"
        let apiVersion: String
        let spec: [String: String] = [:]
        let status: Status
    }
}

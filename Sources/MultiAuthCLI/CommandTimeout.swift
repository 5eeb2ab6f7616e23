import MultiAuthCore
import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import MultiAuthCurl

/// Whole-command time limits, as curl's `--max-time` is: retries, token and credential
/// commands and store waits all count. At the limit the work is cancelled (transfers abort,
/// subprocesses are stopped, partial output files are discarded as the work unwinds) and
/// the command fails with exit 28 and a message naming what timed out and the flag.
package enum CommandTimeout {
    /// What commands that fetch a small answer (login, token, graphql) allow by default.
    package static let defaultSeconds: Double = 30

    /// Runs `work` within `seconds` (0: no limit).
    package static func run<T: Sendable>(
        _ seconds: Double, what: @autoclosure () -> String, flag: String, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = await Deadline.run(for: .clamped(seconds: seconds)) { () async -> Result<T, any Error> in
            do { return .success(try await work()) } catch { return .failure(error) }
        }
        guard let outcome else {
            throw CLIError(message: "\(what()) timed out after \(seconds.secondsText) s (\(flag))", exitCode: 28)
        }
        return try outcome.get()
    }

    /// The transport for a command's small calls: connect within 10 s, each call within
    /// `seconds` (0: only the stall limit). As in the AWS CLI, `AWS_CA_BUNDLE` names the CA
    /// certificates trusted instead of the system's.
    package static func transport(_ seconds: Double = defaultSeconds) -> CurlHTTPClient {
        var options = SenderOptions.bounded(total: .clamped(seconds: seconds))
        if let bundle = ProcessInfo.processInfo.environment["AWS_CA_BUNDLE"], !bundle.isEmpty { options.caBundle = bundle }
        return CurlHTTPClient(options: options)
    }
}

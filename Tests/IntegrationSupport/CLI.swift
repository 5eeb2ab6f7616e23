import Foundation

/// The built `multiauth` executable, run as a user would.
package enum CLI {
    package struct Run {
        package let status: Int32
        package let stdout: String
        package let stderr: String
        /// Seconds from the process's start to its exit.
        package var seconds = 0.0
    }

    package static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    package static let base = [
        "sign", "--region", "us-east-1", "--service", "service", "--access-key-id", "AKIDEXAMPLE",
        "--secret-access-key", secret, "--date", "20150830T123600Z",
    ]

    /// Runs `multiauth` with `arguments`; a run still going after `limit` seconds is killed
    /// (status SIGKILL), so a test of a bounded wait fails instead of hanging.
    package static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil, limit: Double = 300) async throws -> Run {
        try await offPool { try runWaiting(arguments, environment: environment, input: input, limit: limit) }
    }

    private static func runWaiting(_ arguments: [String], environment: [String: String], input: String?, limit: Double) throws -> Run {
        var env = ProcessInfo.processInfo.environment
        for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "MULTIAUTH_STORE_PASSPHRASE"] {
            env[key] = nil
        }
        let finished = try ChildProcess.run(
            Paths.multiauth, arguments, environment: env.merging(environment) { $1 }, input: Data((input ?? "").utf8), limit: limit)
        return Run(
            status: finished.status, stdout: String(decoding: finished.stdout, as: UTF8.self),
            stderr: String(decoding: finished.stderr, as: UTF8.self), seconds: finished.seconds)
    }
}

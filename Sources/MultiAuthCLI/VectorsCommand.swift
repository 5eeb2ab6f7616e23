import ArgumentParser
import MultiAuthSigningVectors

/// `multiauth vectors`: work with signing test suites.
struct VectorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Signing test vectors.",
        subcommands: [Verify.self]
    )

    /// `multiauth vectors verify DIR`: runs every case and reports each failed stage.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run every case under DIR (aws-c-auth or botocore layout) and check every stage.")

        @Argument(help: "A folder holding cases in either official layout (searched recursively).")
        var directory: String

        @Option(help: "A context.json with a botocore-layout suite's key pair, region and service (default: DIR/context.json).")
        var context: String?

        @Flag(help: "Print each passing case too.") var verbose = false

        func run() async throws {
            let cases: [VectorCase]
            do { cases = try VectorLoader.loadCases(in: directory, suiteContext: context) } catch {
                throw CLIError(directory, error)
            }
            let report = VectorReport(outcomes: cases.map(VectorRunner.run))
            print(report.render(verbose: verbose))
            if report.failed > 0 { throw CLIError(message: "\(report.failed) case(s) failed in \(directory)") }
        }
    }
}

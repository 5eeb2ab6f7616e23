package import Foundation

/// Locations the tests read from, relative to the repository (never absolute paths).
package enum Paths {
    /// The repository root, two folders above this file's folder.
    package static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// aws-c-auth's suite, outside the project (never copied into it): in the folder
    /// `MULTIAUTH_SIGNING_SUITES` names (scripts/test sets it), else in ../shared/vectors.
    package static let sharedSuite = (ProcessInfo.processInfo.environment["MULTIAUTH_SIGNING_SUITES"].map { URL(fileURLWithPath: $0) }
        ?? repository.appendingPathComponent("../shared/vectors")).appendingPathComponent("aws-signing-test-suite").standardizedFileURL

    /// botocore's suite, downloaded by scripts/vectors from botocore's source distribution.
    package static let botocoreSuite = repository.appendingPathComponent("vectors/aws4_testsuite")

    /// The project's own derived cases.
    package static let derived = repository.appendingPathComponent("vectors/derived")

    package static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The built `multiauth` executable, beside the test bundle.
    package static var multiauth: URL {
        if let override = ProcessInfo.processInfo.environment["MULTIAUTH_BIN"] { return URL(fileURLWithPath: override) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("multiauth")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return repository.appendingPathComponent(".build/debug/multiauth")
    }

    /// The Python that has botocore: the project's .venv when present.
    package static var python: String {
        let venv = repository.appendingPathComponent(".venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/env"
    }

    package static var pythonArguments: [String] { python == "/usr/bin/env" ? ["python3"] : [] }
}

import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth sso`: IAM Identity Center commands beside `login sso`.
struct SSOCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sso", abstract: "IAM Identity Center: write a profile for every account and role of a login.",
        subcommands: [SSOPopulateCommand.self])
}

/// `multiauth sso populate --sso-session NAME`: one `[profile …]` per account and role the
/// login may use, in the AWS config file.
struct SSOPopulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "populate",
        abstract: "Write one [profile …] per account and role of an sso-session's login (ListAccounts, ListAccountRoles) to the AWS config file.",
        discussion: """
            Uses the login cached by 'multiauth login sso --sso-session NAME' or 'aws sso login'. Each profile it writes carries a \
            comment naming the sso-session; a run again rewrites only those (the same accounts and roles give the same file), never \
            a profile it did not write. Profiles it wrote that the portal no longer lists are kept unless --prune. The file is \
            replaced atomically, its previous text kept beside it as CONFIG.multiauth-backup-TIME. The profile names are printed \
            on standard output, sorted.
            """)

    @Option(help: "The [sso-session NAME] section whose login lists the accounts and roles.") var ssoSession: String
    @Option(help: "How to name each profile: {account_name}, {account_id}, {role_name}, {sso_session}; lower-cased, other characters than letters, digits, '.', '_' and '-' made '-'.")
    var name = "{account_name}-{role_name}"
    @Option(help: "The region each profile sets.", transform: regionArgument) var region: String?
    @Option(help: "The output each profile sets (json, text, table, yaml).") var output: String?
    @Flag(help: "Remove the profiles this command wrote for the sso-session whose account or role is no longer listed.") var prune = false
    @Option(help: "Time limit in seconds, the token refresh and the portal calls included; exit 28 when it passes.")
    var maxTime: Double = CommandTimeout.defaultSeconds

    func validate() throws {
        try ArgumentChecks.seconds(maxTime, "--max-time", in: 0.001...3_600)
        try ArgumentChecks.wireText(output, "--output")
        if let output, output.contains(where: { $0.isWhitespace || $0 == "[" || $0 == "]" }) { throw CLIError("--output", "one word, such as json") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["AWS_CONFIG_FILE"] ?? (environment["HOME"] ?? ".") + "/.aws/config"
        let configuration: SSOSessionConfiguration
        do { configuration = try SSOSessionConfiguration.named(ssoSession, in: try SharedConfigFiles.load(environment: environment)) } catch {
            throw CLIError("--sso-session", error)
        }
        let writer = PopulatedProfiles(session: ssoSession, region: region, output: output)
        let assignments = try await CommandTimeout.run(maxTime, what: "listing the accounts and roles of sso-session '\(ssoSession)'", flag: "--max-time") {
            [ssoSession] in
            let lister = try SSOAssignments(
                configuration: configuration, loginCommand: "multiauth login sso --sso-session \(ssoSession)", environment: environment,
                http: CommandTimeout.transport())
            return try await lister.list()
        }
        let profiles: [PopulatedProfiles.Profile]
        do { profiles = try writer.profiles(assignments, template: name) } catch { throw CLIError("--name", error.description) }
        let existing = try Self.read(path)
        let (text, report) = writer.merged(into: existing ?? "", profiles: profiles, prune: prune)
        if text != (existing ?? "") { try Self.replace(path, with: text, keeping: existing) }
        Self.tell(report, path: path)
        FileHandleless.writeStandardOutput(Array(profiles.map(\.name).sorted().map { $0 + "\n" }.joined().utf8))
    }

    /// The config file's text, or nil when there is none yet.
    private static func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        switch BoundedFileRead.contents(atPath: path, limit: BoundedFileRead.configLimit) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let failure): throw CLIError(message: "\(path) \(failure)")
        }
    }

    /// Writes `text` over `path` atomically, the previous text kept beside it first.
    private static func replace(_ path: String, with text: String, keeping previous: String?) throws {
        let folder = PathSafety.parentDirectory(of: path)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            if let previous {
                let backup = path + ".multiauth-backup-" + ISOTime.text(Date().timeIntervalSince1970).replacing(":", with: "")
                try AtomicFileWrite.replace(path: backup, contents: Array(previous.utf8))
            }
            try AtomicFileWrite.replace(path: path, contents: Array(text.utf8))
        } catch { throw CLIError(message: error.description) }
    }

    private static func tell(_ report: PopulatedProfiles.Report, path: String) {
        var parts: [String] = []
        if !report.written.isEmpty { parts.append("\(report.written.count) written") }
        if !report.unchanged.isEmpty { parts.append("\(report.unchanged.count) unchanged") }
        if !report.pruned.isEmpty { parts.append("\(report.pruned.count) pruned (\(report.pruned.joined(separator: ", ")))") }
        StandardError.emit("multiauth sso populate: \(path): " + (parts.isEmpty ? "no profiles" : parts.joined(separator: ", ")))
        for name in report.skipped {
            StandardError.emit("multiauth: warning: profile '\(name)' exists and was not written by sso populate; left as it is")
        }
        if !report.stale.isEmpty {
            StandardError.emit("multiauth: warning: no longer listed, kept: \(report.stale.joined(separator: ", ")) (--prune removes them)")
        }
    }
}

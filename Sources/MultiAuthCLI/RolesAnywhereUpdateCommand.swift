package import ArgumentParser
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCrypto
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `multiauth rolesanywhere update`: keeps a profile of the shared credentials file holding a
/// current Roles Anywhere session, as `aws_signing_helper update` does, for tools that read
/// only that file.
package struct RolesAnywhereUpdateCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Keep a profile of the shared credentials file holding a current Roles Anywhere session (runs until stopped).",
        discussion: """
            Writes aws_access_key_id, aws_secret_access_key and aws_session_token into the profile's section of \
            AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials), leaving every other line as it was, and writes them \
            again 5 minutes before the session expires. The file is replaced atomically, mode 0600.
            """)
    @OptionGroup var options: RolesAnywhereOptions
    @Option(help: "The profile (section) to write.") var profile: String = "default"

    package func validate() throws {
        guard !profile.isEmpty, !profile.contains(where: { $0 == "[" || $0 == "]" || $0.isNewline }) else {
            throw CLIError("--profile", "a section name without brackets or line breaks")
        }
    }

    package func run() async throws {
        let provider = try await options.provider()
        let environment = ProcessInfo.processInfo.environment
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? (environment["HOME"] ?? ".") + "/.aws/credentials"
        while true {
            let session = try await ChainCredentials.resolve(provider, maxTime: options.maxTime)
            try write(session, to: path)
            StandardError.emit("rolesanywhere update: profile '\(profile)' in \(path) holds \(session.credentials.accessKeyId)")
            let refreshAt = (session.expiration?.timeIntervalSince1970 ?? 0) - 5 * 60
            try await Task.sleep(for: .seconds(max(refreshAt - Date().timeIntervalSince1970, 30)))
        }
    }

    private func write(_ session: ExpiringCredentials, to path: String) throws {
        var existing: [UInt8] = []
        if FileManager.default.fileExists(atPath: path) {
            switch BoundedFileRead.contents(atPath: path, limit: 4 << 20) {
            case .success(let bytes): existing = bytes
            case .failure(let failure): throw CLIError(message: "\(path): \(failure)")
            }
        }
        let keys = session.credentials
        var values = [("aws_access_key_id", keys.accessKeyId), ("aws_secret_access_key", keys.secretAccessKey)]
        if let token = keys.sessionToken { values.append(("aws_session_token", token)) }
        var text = Array(
            ConfigFileSection.replacing(profile, with: values, dropping: ConfigFileSection.sessionKeys, in: String(decoding: existing, as: UTF8.self)).utf8)
        defer { SecureMemory.zero(&text) }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        do { try AtomicFileWrite.replace(path: path, contents: text) } catch { throw CLIError(message: "\(path): \(error)") }
    }
}


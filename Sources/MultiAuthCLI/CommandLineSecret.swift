import MultiAuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A secret given to a flag. Every local user can read a process's arguments
/// (`/proc/PID/cmdline`, `ps`), so `@FILE` reads the secret from a file only its owner can
/// read (one trailing line ending removed), and a secret typed as it is still works, with a
/// warning that names the safer ways. The one path every secret-taking flag goes through.
package enum CommandLineSecret {
    /// The secret `text` gives for `flag`; `alternative` names the variable that also serves.
    package static func value(_ text: String, flag: String, alternative: String?) throws -> String {
        guard text.hasPrefix("@") else {
            let variable = alternative.map { "set \($0) or " } ?? ""
            StandardError.emit(
                "multiauth: warning: \(flag) on the command line is visible to every local user (ps, /proc/PID/cmdline); \(variable)give \(flag) @FILE")
            return text
        }
        let path = String(text.dropFirst())
        do { _ = try PathSafety.checkFile(path, forbiddenMode: 0o077) } catch { throw CLIError(flag, error) }
        let bytes: [UInt8]
        switch BoundedFileRead.contents(atPath: path, limit: 64 << 10) {
        case .success(let read): bytes = read
        case .failure(let failure): throw CLIError(flag, "'\(path)' \(failure)")
        }
        var secret = String(decoding: bytes, as: UTF8.self)
        if secret.hasSuffix("\n") || secret.hasSuffix("\r\n") { secret.removeLast() }  // "\r\n" is one Character
        guard !secret.isEmpty else { throw CLIError(flag, "'\(path)' is empty") }
        return secret
    }
}

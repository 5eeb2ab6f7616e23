import ArgumentParser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file option given as `credential:NAME`: the file `NAME` in the folder systemd passes as
/// `$CREDENTIALS_DIRECTORY` (a unit's `LoadCredential=NAME:PATH`), so a service with
/// `DynamicUser=yes` reads its keys without access to where they are kept. Any other value
/// is a path, as before.
package enum SystemdCredential {
    /// What a value names in `--option`'s help.
    package static let helpSuffix = " A value credential:NAME reads $CREDENTIALS_DIRECTORY/NAME (systemd's LoadCredential=)."

    /// The path `value` names (the option parser's transform).
    /// - Throws: `ValidationError` when `value` names a credential and systemd gave none, or
    ///   the name is not a plain file name.
    package static func path(_ value: String) throws -> String {
        guard value.hasPrefix("credential:") else { return value }
        let name = String(value.dropFirst("credential:".count))
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw ValidationError("'\(value)': a credential's name is a file name, without '/'")
        }
        guard let folder = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty else {
            throw ValidationError("'\(value)' names a systemd credential, but $CREDENTIALS_DIRECTORY is not set (LoadCredential= in the unit gives it)")
        }
        return folder + "/" + name
    }
}

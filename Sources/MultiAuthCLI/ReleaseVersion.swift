#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The release both executables belong to, printed by `--version`. `multiauth` passes it to
/// `multiauth-server` when it hands a command over, and the server refuses to run for a
/// `multiauth` of another release: a stale second binary must not run silently.
package enum ReleaseVersion {
    /// This release.
    package static let current = "1.0.0"

    /// The variable `multiauth` sets for the executable it hands over to.
    static let handOverVariable = "MULTIAUTH_HANDOVER_VERSION"

    /// Marks this process's environment for the hand-over (called just before `execv`).
    static func markHandOver() {
        setenv(handOverVariable, current, 1)
    }

    /// In `executable` (`multiauth-server` or `multiauth-forward`): a failure when the
    /// `multiauth` that handed over is of another release, and nil otherwise (also when it was
    /// started directly).
    package static func handOverMismatch(executable: String = ServerCommand.executableName) -> CLIError? {
        guard let value = getenv(handOverVariable) else { return nil }
        let caller = String(cString: value)
        unsetenv(handOverVariable)  // not passed on to what the command starts
        guard caller != current else { return nil }
        return CLIError(
            message: "\(executable) is version \(current) but multiauth is version \(caller): install both from the same build")
    }
}

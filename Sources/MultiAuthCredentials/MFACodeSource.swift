import MultiAuthCore

/// Where the code of a profile's MFA device (`mfa_serial`) comes from when a session needs
/// one: a fixed code, a command that prints one (aws-vault's `mfa_process`), or a function
/// of the caller's (a terminal prompt).
public struct MFACodeSource: Sendable {
    let read: @Sendable (_ serial: String, _ profile: String) async throws(CredentialsError) -> String

    /// Codes from `read`, called with the device's serial and the profile's name each time a
    /// session needs a code.
    public init(_ read: @escaping @Sendable (_ serial: String, _ profile: String) async throws(CredentialsError) -> String) {
        self.read = read
    }

    /// Always `code`.
    public static func fixed(_ code: String) -> MFACodeSource { MFACodeSource { _, _ in code } }

    /// What `command` (run with `/bin/sh -c`, at most `timeout` seconds) prints, surrounding
    /// white space removed.
    public static func command(_ command: String, timeout: Duration = .seconds(60)) -> MFACodeSource {
        MFACodeSource { serial, profile throws(CredentialsError) in
            do throws(ShellCommandError) {
                return String(decoding: try await ShellCommand.output(of: command, timeout: timeout.inSeconds), as: UTF8.self).trimmedWhitespace
            } catch {
                throw .mfaCodeUnavailable(profile: profile, serial: serial, problem: "the MFA code command \(error)")
            }
        }
    }

    /// A code for `serial` that STS can take: six digits.
    func code(serial: String, profile: String) async throws(CredentialsError) -> String {
        let code = try await read(serial, profile)
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .mfaCodeUnavailable(profile: profile, serial: serial, problem: "the MFA code is not six digits")
        }
        return code
    }
}

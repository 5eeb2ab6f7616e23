import MultiAuthCore
import MultiAuthCredentials
import Testing

/// The one runner behind `credential_process`, with real `/bin/sh` children: a failure says
/// what the command said on standard error, as botocore's `CredentialRetrievalError` does,
/// with secret-looking words taken out.
struct ShellCommandTests {
    @Test func aFailureNamesTheFirstLinesOfStandardError() async {
        let command = "echo 'profile a: credential_process recursion stopped' >&2; echo 'key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' >&2; echo '{\"Version\": 1}'; exit 3"
        await #expect {
            _ = try await ShellCommand.output(of: command, timeout: 30)
        } throws: { error in
            let message = "\(error)"
            return message.contains("exited(3)") && message.contains("profile a: credential_process recursion stopped / key <redacted>")
                && !message.contains("wJalrXUtnFEMI") && !message.contains("Version")
        }
    }

    @Test func aSilentFailureNamesItsStatusOnly() async {
        await #expect {
            _ = try await ShellCommand.output(of: "exit 1", timeout: 30)
        } throws: { error in
            "\(error)" == "ended with exited(1)"
        }
    }
}

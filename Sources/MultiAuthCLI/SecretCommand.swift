import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials

extension SecretSource {
    /// The standard output of `/bin/sh -c command`, run for every request, without
    /// surrounding whitespace (a trailing CRLF is removed too). It must finish within
    /// `timeout` seconds; then it is stopped with everything it started.
    static func command(_ command: String, timeout: Double) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            let output: [UInt8]
            do throws(ShellCommandError) { output = try await ShellCommand.output(of: command, timeout: timeout) } catch {
                if case .timedOut(let seconds) = error.kind { throw .tokenCommandTimedOut(seconds: seconds) }
                throw .tokenUnavailable("token command \(error)")
            }
            let token = String(decoding: output, as: UTF8.self).trimmedWhitespace
            guard !token.isEmpty else { throw AuthorizationError.tokenUnavailable("token command printed nothing") }
            return token
        }
    }
}

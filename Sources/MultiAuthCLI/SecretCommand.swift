import Authorization
import MultiAuthCore
import Subprocess

extension SecretSource {
    /// The standard output of `/bin/sh -c command`, run for every request, without
    /// surrounding whitespace (a trailing CRLF is removed too).
    static func command(_ command: String) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            do {
                let result = try await Subprocess.run(
                    .path("/bin/sh"), arguments: ["-c", command], output: .bytes(limit: 1 << 20), error: .discarded)
                guard case .exited(0) = result.terminationStatus else {
                    throw AuthorizationError.tokenUnavailable("token command exited with \(result.terminationStatus)")
                }
                let token = String(decoding: result.standardOutput, as: UTF8.self).trimmedWhitespace
                guard !token.isEmpty else { throw AuthorizationError.tokenUnavailable("token command printed nothing") }
                return token
            } catch let error as AuthorizationError {
                throw error
            } catch {
                throw .tokenUnavailable("token command could not be started")
            }
        }
    }
}

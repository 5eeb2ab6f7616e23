import Authorization
import Subprocess

extension SecretSource {
    /// The standard output of `/bin/sh -c command`, run for every request, without
    /// surrounding whitespace (bytes: a trailing CRLF is removed too).
    static func command(_ command: String) -> SecretSource {
        SecretSource { () async throws(AuthorizationError) -> String in
            do {
                let result = try await Subprocess.run(
                    .path("/bin/sh"), arguments: ["-c", command], output: .bytes(limit: 1 << 20), error: .discarded)
                guard case .exited(0) = result.terminationStatus else {
                    throw AuthorizationError.tokenUnavailable("token command exited with \(result.terminationStatus)")
                }
                let token = String(decoding: trimmed(result.standardOutput), as: UTF8.self)
                guard !token.isEmpty else { throw AuthorizationError.tokenUnavailable("token command printed nothing") }
                return token
            } catch let error as AuthorizationError {
                throw error
            } catch {
                throw .tokenUnavailable("token command could not be started")
            }
        }
    }

    private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }
}

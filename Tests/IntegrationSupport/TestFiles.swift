import Foundation

/// Files the end-to-end tests send.
package enum TestFiles {
    /// A file of `bytes` bytes of a fixed pattern, in the temporary folder.
    package static func file(bytes: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-chunked-\(UUID().uuidString)").path
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The SHA-256 of the file at `path`, as `sha256sum` (not our code) computes it.
    package static func referenceSHA256(of path: String) async throws -> String {
        try await offPool { try referenceSHA256Waiting(of: path) }
    }

    private static func referenceSHA256Waiting(of path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }
}

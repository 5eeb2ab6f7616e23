package import Foundation

/// A throwaway store with a key file, and the arguments that open it.
package final class TempStore: Sendable {
    package let folder: String

    package init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-login-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let created = try await CLI.run(["store", "init", "--store", folder + "/store", "--key-file", folder + "/key"])
        guard created.status == 0 else { throw Peers.PeerError.scriptFailed("store init", created.status, created.stderr) }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    package var arguments: [String] { ["--store", folder + "/store", "--key-file", folder + "/key"] }
}

/// A `multiauth` process whose standard error is read while it runs (for the flows where
/// the user acts in the middle: the device code and the browser).
package final class RunningCLI: @unchecked Sendable {
    package let process = Process()
    private let errorPipe = Pipe()
    private let outputPipe = Pipe()

    package init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Paths.multiauth
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardError = errorPipe
        process.standardOutput = outputPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Standard error up to the first line that satisfies `match`, within `timeout` seconds.
    package func waitForLine(timeout: Double = 10, _ match: @escaping @Sendable (String) -> Bool) async throws -> String? {
        try await offPool { self.waitForLineWaiting(timeout: timeout, match) }
    }

    private func waitForLineWaiting(timeout: Double, _ match: (String) -> Bool) -> String? {
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let chunk = errorPipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").map(String.init).first(where: match) { return line }
        }
        return nil
    }

    package func finish() async throws -> (status: Int32, stderr: String) {
        try await offPool { self.finishWaiting() }
    }

    private func finishWaiting() -> (status: Int32, stderr: String) {
        let rest = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }
}

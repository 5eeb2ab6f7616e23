#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fresh private folder (mode 0700) for one test, removed with everything in it when the
/// value goes away: tests that share a server share no files.
public final class TemporaryFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// Creates the folder under the system's temporary directory.
    public init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-test-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }
}

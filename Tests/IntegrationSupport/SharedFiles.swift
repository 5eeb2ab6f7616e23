import Foundation

/// A throwaway AWS config file with `config` as its text, and a credentials path that does
/// not exist; `remove()` deletes them.
package struct SharedFiles {
    package let folder: String
    package var config: String { folder + "/config" }
    package var credentials: String { folder + "/none" }

    package init(config text: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-shared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/config"))
    }

    package func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

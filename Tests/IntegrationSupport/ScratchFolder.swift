package import Foundation

/// A throwaway folder for one test, with the small files and scripts it needs; `remove()`
/// deletes it.
package struct ScratchFolder {
    package let url: URL
    package var path: String { url.path }

    package init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A `/bin/sh` script `name` with `body` after the shebang, mode 0755; its path.
    package func script(_ name: String, _ body: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: file)
        chmod(file.path, 0o755)
        return file.path
    }

    /// A file `name` of `count` bytes of `x`, mode 0600; its path.
    package func file(_ name: String, bytes count: Int) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(repeating: UInt8(ascii: "x"), count: count).write(to: file)
        chmod(file.path, 0o600)
        return file.path
    }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}

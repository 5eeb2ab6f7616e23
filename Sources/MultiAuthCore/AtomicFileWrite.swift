#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file could not be written: `reason` is the system's.
package struct AtomicFileWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    package let path: String
    /// What failed.
    package let reason: String

    package var description: String { "cannot write \(path): \(reason)" }
}

/// Crash-safe file replacement: write a temp file in the same folder, fsync it, rename it
/// over the target, fsync the folder. A reader sees the old file or the new one, never a mix.
package enum AtomicFileWrite {
    /// Replaces (or creates) `path` with `contents`, mode 0600. Temp files that writers
    /// killed mid-write left behind are removed first.
    package static func replace(path: String, contents: [UInt8]) throws(AtomicFileWriteError) {
        let directory = PathSafety.parentDirectory(of: path)
        removeStaleTemporaries(of: path, in: directory)
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let temporary = "\(directory)/.\(baseName(path)).\(getpid()).\(suffix).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AtomicFileWriteError(path: path, reason: systemErrorText()) }
        do throws(AtomicFileWriteError) {
            try writeAll(descriptor, contents, path: path)
            guard fsync(descriptor) == 0 else { throw AtomicFileWriteError(path: path, reason: "fsync: " + systemErrorText()) }
            guard close(descriptor) == 0 else { throw AtomicFileWriteError(path: path, reason: "close: " + systemErrorText()) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = systemErrorText()
            unlink(temporary)
            throw AtomicFileWriteError(path: path, reason: "rename: " + reason)
        }
        syncDirectory(directory)
    }

    /// Removes `.<name>.<pid>.<random>.tmp` files whose writer process no longer exists.
    private static func removeStaleTemporaries(of path: String, in directory: String) {
        let prefix = ".\(baseName(path))."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let parts = name.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[0]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
        }
    }

    /// Writes all of `contents` to `descriptor`, retrying short writes and EINTR.
    package static func writeAll(_ descriptor: Int32, _ contents: [UInt8], path: String) throws(AtomicFileWriteError) {
        if let failure = contents.withUnsafeBytes({ writeFully(descriptor, $0) }) {
            throw AtomicFileWriteError(path: path, reason: String(cString: strerror(failure)))
        }
    }

    /// Makes a rename or creation in `directory` durable.
    package static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

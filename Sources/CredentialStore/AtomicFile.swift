import MultiAuthCore
import MultiAuthCrypto

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

/// Crash-safe file replacement: write a temp file in the same folder, fsync it, rename it
/// over the target, fsync the folder. A reader sees the old file or the new one, never a mix.
enum AtomicFile {
    /// Replaces (or creates) `path` with `contents`, mode 0600. Call it under the store lock:
    /// temp files that writers killed mid-write left behind are removed first.
    static func replace(path: String, contents: [UInt8]) throws(StoreError) {
        let directory = FileSafety.parentDirectory(of: path)
        removeStaleTemporaries(of: path, in: directory)
        let suffix = (try? SecureRandom.bytes(count: 6)).map(Hex.encode) ?? String(getpid())
        let temporary = "\(directory)/.\(baseName(path)).\(getpid()).\(suffix).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: systemErrorText()) }
        do throws(StoreError) {
            try writeAll(descriptor, contents, path: path)
            guard fsync(descriptor) == 0 else { throw .writeFailed(path: path, reason: "fsync: " + systemErrorText()) }
            guard close(descriptor) == 0 else { throw .writeFailed(path: path, reason: "close: " + systemErrorText()) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = systemErrorText()
            unlink(temporary)
            throw .writeFailed(path: path, reason: "rename: " + reason)
        }
        syncDirectory(directory)
    }

    /// Removes `.<name>.<pid>.<random>.tmp` files whose writer process no longer exists.
    /// They hold only encrypted images that never became the store.
    private static func removeStaleTemporaries(of path: String, in directory: String) {
        let prefix = ".\(baseName(path))."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let parts = name.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[0]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
        }
    }

    /// Creates `path` with `contents` (mode 0600) only if it does not exist yet.
    static func createExclusively(path: String, contents: [UInt8]) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw .storeExists(path: path) }
            throw .writeFailed(path: path, reason: systemErrorText())
        }
        do throws(StoreError) {
            try writeAll(descriptor, contents, path: path)
            guard fsync(descriptor) == 0 else { throw .writeFailed(path: path, reason: "fsync: " + systemErrorText()) }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        close(descriptor)
        syncDirectory(FileSafety.parentDirectory(of: path))
    }

    /// Reads the whole file, or nil when it does not exist.
    static func read(path: String) throws(StoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .readFailed(path: path, reason: systemErrorText())
        }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: systemErrorText())
            }
            contents += chunk[0..<count]
        }
        return contents
    }

    private static func writeAll(_ descriptor: Int32, _ contents: [UInt8], path: String) throws(StoreError) {
        var offset = 0
        while offset < contents.count {
            let written = contents.withUnsafeBytes { raw in
                raw.baseAddress.map { write(descriptor, $0 + offset, raw.count - offset) } ?? 0
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(path: path, reason: systemErrorText())
            }
            offset += written
        }
    }

    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// The store's lock: a ``FileLock`` on `<store>.lock`, held for a read-modify-write across
/// processes, with its failures as ``StoreError``s.
struct StoreLock: ~Copyable {
    private let lock: FileLock

    /// Waits up to `timeout` seconds for the lock.
    init(storePath: String, timeout: Double) throws(StoreError) {
        do { lock = try FileLock(path: storePath + ".lock", timeout: timeout) } catch { throw Self.storeError(error, storePath: storePath) }
    }

    static func storeError(_ error: FileLockError, storePath: String) -> StoreError {
        switch error {
        case .failed(let path, let reason): .writeFailed(path: path, reason: reason)
        case .timedOut(_, let waited): .locked(path: storePath, waitedSeconds: waited)
        }
    }
}

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

/// The store's file operations, on ``AtomicFileWrite`` (crash-safe replacement), with
/// ``StoreError``s.
enum AtomicFile {
    /// Replaces (or creates) `path` with `contents`, mode 0600. Call it under the store lock:
    /// temp files that writers killed mid-write left behind are removed first (they hold only
    /// encrypted images that never became the store).
    static func replace(path: String, contents: [UInt8]) throws(StoreError) {
        do throws(AtomicFileWriteError) { try AtomicFileWrite.replace(path: path, contents: contents) } catch {
            throw .writeFailed(path: path, reason: error.reason)
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
    static func read(path: String) throws(StoreError) -> [UInt8]? { try readWithIdentity(path: path)?.contents }

    /// The file's identity (see ``FileStoreBackend``), or nil when it does not exist.
    static func identity(path: String) -> StoreVersion? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(info)
    }

    /// Reads the whole file and the identity of what was read (from the same descriptor), or
    /// nil when it does not exist.
    static func readWithIdentity(path: String) throws(StoreError) -> (contents: [UInt8], identity: StoreVersion)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .readFailed(path: path, reason: systemErrorText())
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .readFailed(path: path, reason: systemErrorText()) }
        return (try readAll(descriptor, path: path), identity(info))
    }

    private static func identity(_ info: stat) -> StoreVersion {
        StoreVersion(
            "\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)")
    }

    private static func readAll(_ descriptor: Int32, path: String) throws(StoreError) -> [UInt8] {
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
        do throws(AtomicFileWriteError) { try AtomicFileWrite.writeAll(descriptor, contents, path: path) } catch {
            throw .writeFailed(path: path, reason: error.reason)
        }
    }

    private static func syncDirectory(_ directory: String) { AtomicFileWrite.syncDirectory(directory) }

}

/// The store's lock failures as ``StoreError``s.
enum StoreLock {
    static func storeError(_ error: FileLockError, storePath: String) -> StoreError {
        switch error.kind {
        case .failed(let path, let reason): .writeFailed(path: path, reason: reason)
        case .timedOut(_, let waited): .locked(path: storePath, waitedSeconds: waited)
        }
    }
}

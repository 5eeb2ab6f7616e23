import MultiAuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The store in one file on this host (the default): replaced whole by rename on every write
/// (crash-safe), mode 0600 in a folder others cannot write, locked with `flock` on
/// `<path>.lock`. A file's version is its identity: inode, size, and modification and
/// change times. File work runs off the cooperative pool.
public struct FileStoreBackend: StoreBackend {
    /// The store file.
    public let path: String

    /// The store at `path`.
    public init(path: String) { self.path = path }

    public var location: String { path }

    public func read() async throws(StoreError) -> StoreImage? {
        try await offload { () throws(StoreError) in
            try FileSafety.prepareDirectory(FileSafety.parentDirectory(of: path))
            guard try FileSafety.checkSecretFile(path), let read = try AtomicFile.readWithIdentity(path: path) else { return nil }
            return StoreImage(bytes: read.contents, version: read.identity)
        }
    }

    public func create(_ image: [UInt8]) async throws(StoreError) {
        try await offload { () throws(StoreError) in
            try FileSafety.prepareDirectory(FileSafety.parentDirectory(of: path))
            guard try !FileSafety.checkSecretFile(path) else { throw .storeExists(path: path) }
            try AtomicFile.createExclusively(path: path, contents: image)
        }
    }

    public func replace(_ image: [UInt8], expecting version: StoreVersion) async throws(StoreError) {
        try await offload { () throws(StoreError) in
            guard AtomicFile.identity(path: path) == version else { throw .conflict(path: path) }
            try AtomicFile.replace(path: path, contents: image)
        }
    }

    public func lock(timeout: Duration) async throws(StoreError) -> any StoreBackendLock {
        try await offload { () throws(StoreError) in try FileSafety.prepareDirectory(FileSafety.parentDirectory(of: path)) }
        do { return try await FileLock.acquire(path: path + ".lock", timeout: timeout) } catch {
            throw StoreLock.storeError(error, storePath: path)
        }
    }

    public func version() async throws(StoreError) -> StoreVersion? { AtomicFile.identity(path: path) }

    public func readAttachment(_ name: String) async throws(StoreError) -> [UInt8]? {
        let attachment = path + "." + name
        return try await offload { () throws(StoreError) in
            guard try FileSafety.checkSecretFile(attachment) else { return nil }
            return try AtomicFile.read(path: attachment)
        }
    }

    public func createAttachment(_ name: String, _ bytes: [UInt8]) async throws(StoreError) {
        let attachment = path + "." + name
        try await offload { () throws(StoreError) in
            try FileSafety.prepareDirectory(FileSafety.parentDirectory(of: attachment))
            try AtomicFile.createExclusively(path: attachment, contents: bytes)
        }
    }

    private func offload<T: Sendable>(_ work: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        try await runBlocking { Result { () throws(StoreError) in try work() } }
    }
}

extension HeldFileLock: StoreBackendLock {}

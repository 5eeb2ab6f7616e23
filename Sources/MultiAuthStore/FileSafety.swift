import MultiAuthCore

/// The store's file checks: ``PathSafety`` (the one implementation, shared with the AppSync
/// caches) with its failures as ``StoreError``s. Secret files are closed to group and
/// others; the store's folder must not be writable by others.
enum FileSafety {
    /// Refuses `path` unless it is a regular file owned by us with no group/other access.
    /// Returns false when the file does not exist.
    static func checkSecretFile(_ path: String) throws(StoreError) -> Bool {
        do { return try PathSafety.checkFile(path, forbiddenMode: 0o077) } catch { throw StoreError(error) }
    }

    /// Creates `directory` (and parents) with mode 0700 when missing; refuses an existing
    /// one that others can write to.
    static func prepareDirectory(_ directory: String) throws(StoreError) {
        do { try PathSafety.prepareFolder(directory) } catch { throw StoreError(error) }
    }

    static func parentDirectory(of path: String) -> String { PathSafety.parentDirectory(of: path) }
}

extension StoreError {
    init(_ error: PathSafetyError) {
        switch error.kind {
        case .unsafe(let path, let problem, let fix): self = .insecurePermissions(path: path, problem: problem, fix: fix)
        case .unreadable(let path, let reason): self = .readFailed(path: path, reason: reason)
        case .uncreatable(let path, let reason): self = .writeFailed(path: path, reason: reason)
        }
    }
}

/// The permission check for secret files, for callers outside this module (passphrase files).
public enum StoreFileCheck {
    /// True when `path` exists and passes the checks; false when it does not exist.
    /// - Throws: ``StoreError/insecurePermissions(path:problem:fix:)`` when it is unsafe.
    public static func secretFileExists(_ path: String) throws(StoreError) -> Bool {
        try FileSafety.checkSecretFile(path)
    }
}

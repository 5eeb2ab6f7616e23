#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system checks as ssh makes them: secret files must be regular files (not
/// symlinks), owned by the current user, and closed to group and others; their folder
/// must not be writable by others.
enum FileSafety {
    /// Refuses `path` unless it is a regular file owned by us with no group/other access.
    /// Returns false when the file does not exist.
    static func checkSecretFile(_ path: String) throws(StoreError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .readFailed(path: path, reason: systemErrorText())
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw .insecurePermissions(path: path, problem: "is a symbolic link", fix: "replace it with the real file")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .insecurePermissions(path: path, problem: "is not a regular file", fix: "point to a regular file")
        }
        if info.st_uid != geteuid() {
            throw .insecurePermissions(
                path: path, problem: "is owned by another user (uid \(info.st_uid))",
                fix: "run 'chown \(geteuid()) \(path)' or use your own file")
        }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw .insecurePermissions(
                path: path, problem: "is accessible by group or others (mode \(mode))", fix: "run 'chmod 600 \(path)'")
        }
        return true
    }

    /// Creates `directory` (and parents) with mode 0700 when missing; refuses an existing
    /// one that others can write to or that belongs to another user.
    static func prepareDirectory(_ directory: String) throws(StoreError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .readFailed(path: directory, reason: systemErrorText()) }
            let parent = parentDirectory(of: directory)
            if parent != directory { try prepareDirectory(parent) }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw .writeFailed(path: directory, reason: systemErrorText())
            }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .insecurePermissions(path: directory, problem: "is not a folder", fix: "choose another store path")
        }
        if info.st_mode & 0o022 != 0 && info.st_mode & UInt32(S_ISVTX) == 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw .insecurePermissions(
                path: directory, problem: "is writable by group or others (mode \(mode))",
                fix: "run 'chmod go-w \(directory)'")
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
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

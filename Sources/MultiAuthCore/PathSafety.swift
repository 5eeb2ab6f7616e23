#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file or folder is refused by ``PathSafety``.
public struct PathSafetyError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension PathSafetyError {
    /// The path is a link, not the expected kind, owned by someone else, or open to others;
    /// `fix` says what to run.
    public static func unsafe(path: String, problem: String, fix: String) -> PathSafetyError {
        PathSafetyError(.unsafe(path: path, problem: problem, fix: fix))
    }
    /// The file system would not say what is at `path`.
    public static func unreadable(path: String, reason: String) -> PathSafetyError {
        PathSafetyError(.unreadable(path: path, reason: reason))
    }
    /// A missing folder could not be created.
    public static func uncreatable(path: String, reason: String) -> PathSafetyError {
        PathSafetyError(.uncreatable(path: path, reason: reason))
    }
}

extension PathSafetyError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``PathSafetyError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case unsafe(path: String, problem: String, fix: String)
        case unreadable(path: String, reason: String)
        case uncreatable(path: String, reason: String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .unsafe(let path, let problem, let fix): "'\(path)' \(problem) (\(fix))"
            case .unreadable(let path, let reason): "cannot inspect '\(path)': \(reason)"
            case .uncreatable(let path, let reason): "cannot create '\(path)': \(reason)"
            }
        }
    }
}

/// File-system checks as ssh makes them, the one implementation behind the credential store
/// and the AppSync caches: files must be regular files (not symbolic links) owned by the
/// current user and closed to others as far as asked; folders are created 0700 and refused
/// when others can write to them.
public enum PathSafety {
    /// Checks `path` when it exists: a regular file, owned by the effective user, with none of
    /// the `forbiddenMode` bits set (0o077 for secrets, 0o022 for caches). Returns false when
    /// it does not exist.
    public static func checkFile(_ path: String, forbiddenMode: mode_t) throws(PathSafetyError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .unreadable(path: path, reason: systemErrorText())
        }
        try check(info, path: path, forbiddenMode: forbiddenMode)
        return true
    }

    /// Opens `path` for appending, creating it 0600 when missing, without following a
    /// symbolic link; the file opened must pass ``checkFile(_:forbiddenMode:)``'s checks
    /// (made on the open file, so nothing can be swapped in between). The caller closes it.
    public static func openForAppending(_ path: String, forbiddenMode: mode_t = 0o077) throws(PathSafetyError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .unsafe(path: path, problem: "is a symbolic link", fix: "replace it with the real file") }
            throw .unreadable(path: path, reason: systemErrorText())
        }
        var info = stat()
        do throws(PathSafetyError) {
            guard fstat(descriptor, &info) == 0 else { throw .unreadable(path: path, reason: systemErrorText()) }
            try check(info, path: path, forbiddenMode: forbiddenMode)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// A regular file owned by the effective user, with none of `forbiddenMode`'s bits.
    private static func check(_ info: stat, path: String, forbiddenMode: mode_t) throws(PathSafetyError) {
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw .unsafe(path: path, problem: "is a symbolic link", fix: "replace it with the real file")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unsafe(path: path, problem: "is not a regular file", fix: "point to a regular file")
        }
        try checkOwner(info, path: path, fix: "run 'chown \(geteuid()) \(path)' or use your own file")
        if info.st_mode & forbiddenMode != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            let who = forbiddenMode & 0o044 != 0 ? "accessible" : "writable"
            let target = String(0o666 & ~forbiddenMode, radix: 8)
            throw .unsafe(path: path, problem: "is \(who) by group or others (mode \(mode))", fix: "run 'chmod \(target) \(path)'")
        }
    }

    /// Creates `directory` (and missing parents) with mode 0700, and refuses an existing one
    /// that is not a folder or that group or others can write to. A sticky folder such as
    /// `/tmp` passes unless `mustBeOwned`; with `mustBeOwned` the folder must also belong to the
    /// effective user (a cache folder: another user could plant files in it otherwise).
    public static func prepareFolder(_ directory: String, mustBeOwned: Bool = false) throws(PathSafetyError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .unreadable(path: directory, reason: systemErrorText()) }
            let parent = parentDirectory(of: directory)
            if parent != directory { try prepareFolder(parent) }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw .uncreatable(path: directory, reason: systemErrorText())
            }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .unsafe(path: directory, problem: "is not a folder", fix: "choose another path")
        }
        if mustBeOwned { try checkOwner(info, path: directory, fix: "use a folder of your own") }
        let sticky = info.st_mode & mode_t(S_ISVTX) != 0
        if info.st_mode & 0o022 != 0 && (mustBeOwned || !sticky) {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw .unsafe(path: directory, problem: "is writable by group or others (mode \(mode))", fix: "run 'chmod go-w \(directory)'")
        }
    }

    /// The folder part of `path` (`.` for a bare name).
    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    private static func checkOwner(_ info: stat, path: String, fix: String) throws(PathSafetyError) {
        guard info.st_uid != geteuid() else { return }
        throw .unsafe(path: path, problem: "is owned by another user (uid \(info.st_uid))", fix: fix)
    }
}

/// The C library's text for `code` (default: `errno`), lowercased for use inside a sentence.
package func systemErrorText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code)).lowercased()
}

extension PathSafetyError.Kind {
    /// `PathSafety.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .unsafe: "PathSafety.unsafe"
        case .unreadable: "PathSafety.unreadable"
        case .uncreatable: "PathSafety.uncreatable"
        }
    }
}

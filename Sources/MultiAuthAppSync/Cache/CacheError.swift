public import MultiAuthCore

/// Why a client's cache could not be used. Messages name the client entry and the file.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cache folder cannot be created or written.
    case unwritableDirectory(entry: String, path: String, reason: String)
    /// The cache folder or a database file is not ours, is open to other writers, or is a
    /// link; `fix` says what to run. Nothing in it was read.
    case insecurePermissions(entry: String, path: String, problem: String, fix: String)
    /// A database file is not a SQLite database or is damaged. It was renamed to `movedTo`
    /// (never deleted); the next run starts a fresh one.
    case corruptDatabase(entry: String, file: String, movedTo: String)
    /// A database operation failed.
    case database(entry: String, file: String, reason: String)
    /// Another live client uses these database files for another URL or auth mode (the
    /// AppSync SDK's `cacheConfigurationAlreadyInUse`).
    case alreadyInUse(file: String, ownerURL: String, ownerMode: String)

    public var description: String {
        switch self {
        case .unwritableDirectory(let entry, let path, let reason): "client '\(entry)': cannot use cache folder \(path): \(reason)"
        case .insecurePermissions(let entry, let path, let problem, let fix):
            "client '\(entry)': cache \(path) \(problem): \(fix), or give another --cache-dir"
        case .corruptDatabase(let entry, let file, let movedTo):
            "client '\(entry)': \(file) is not a usable SQLite database; it was moved to \(movedTo) (nothing was deleted)"
        case .database(let entry, let file, let reason): "client '\(entry)': \(file): \(reason)"
        case .alreadyInUse(let file, let url, let mode):
            "\(file) is already in use by a live client for \(url) (\(mode)); give this client its own ClientDatabasePrefix"
        }
    }
}

extension CacheError {
    init(_ error: PathSafetyError, entry: String) {
        switch error {
        case .unsafe(let path, let problem, let fix): self = .insecurePermissions(entry: entry, path: path, problem: problem, fix: fix)
        case .unreadable(let path, let reason), .uncreatable(let path, let reason):
            self = .unwritableDirectory(entry: entry, path: path, reason: reason)
        }
    }
}

extension CacheError: CodedError {
    /// `Cache.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .unwritableDirectory: "Cache.unwritableDirectory"
        case .insecurePermissions: "Cache.insecurePermissions"
        case .corruptDatabase: "Cache.corruptDatabase"
        case .database: "Cache.database"
        case .alreadyInUse: "Cache.alreadyInUse"
        }
    }
}

public import MultiAuthCore

/// Why a client's cache could not be used. Messages name the client entry and the file.
public struct CacheError: CodedError, Sendable, Equatable {
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

extension CacheError {
    /// The cache folder cannot be created or written.
    public static func unwritableDirectory(entry: String, path: String, reason: String) -> CacheError {
        CacheError(.unwritableDirectory(entry: entry, path: path, reason: reason))
    }
    /// The cache folder or a database file is not ours, is open to other writers, or is a
    /// link; `fix` says what to run. Nothing in it was read.
    public static func insecurePermissions(entry: String, path: String, problem: String, fix: String) -> CacheError {
        CacheError(.insecurePermissions(entry: entry, path: path, problem: problem, fix: fix))
    }
    /// A database file is not a SQLite database or is damaged. It was renamed to `movedTo`
    /// (never deleted); the next run starts a fresh one.
    public static func corruptDatabase(entry: String, file: String, movedTo: String) -> CacheError {
        CacheError(.corruptDatabase(entry: entry, file: file, movedTo: movedTo))
    }
    /// A database operation failed.
    public static func database(entry: String, file: String, reason: String) -> CacheError {
        CacheError(.database(entry: entry, file: file, reason: reason))
    }
    /// Another live client uses these database files for another URL or auth mode (the
    /// AppSync SDK's `cacheConfigurationAlreadyInUse`).
    public static func alreadyInUse(file: String, ownerURL: String, ownerMode: String) -> CacheError {
        CacheError(.alreadyInUse(file: file, ownerURL: ownerURL, ownerMode: ownerMode))
    }
}

extension CacheError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``CacheError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case unwritableDirectory(entry: String, path: String, reason: String)
        case insecurePermissions(entry: String, path: String, problem: String, fix: String)
        case corruptDatabase(entry: String, file: String, movedTo: String)
        case database(entry: String, file: String, reason: String)
        case alreadyInUse(file: String, ownerURL: String, ownerMode: String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
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
}

extension CacheError {
    init(_ error: PathSafetyError, entry: String) {
        switch error.kind {
        case .unsafe(let path, let problem, let fix): self = .insecurePermissions(entry: entry, path: path, problem: problem, fix: fix)
        case .unreadable(let path, let reason), .uncreatable(let path, let reason):
            self = .unwritableDirectory(entry: entry, path: path, reason: reason)
        }
    }
}

extension CacheError.Kind {
    /// `Cache.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .unwritableDirectory: "Cache.unwritableDirectory"
        case .insecurePermissions: "Cache.insecurePermissions"
        case .corruptDatabase: "Cache.corruptDatabase"
        case .database: "Cache.database"
        case .alreadyInUse: "Cache.alreadyInUse"
        }
    }
}

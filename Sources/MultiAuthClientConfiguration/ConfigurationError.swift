public import MultiAuthCore

/// Why an `awsconfiguration.json` cannot be used. Every message names the file and the JSON
/// path (`AppSync.friendly_name_AWS_IAM.Region: missing`), never a key or secret.
public struct ConfigurationError: CodedError, Sendable, Equatable {
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

extension ConfigurationError {
    /// The file could not be read.
    public static func unreadable(file: String, reason: String) -> ConfigurationError {
        ConfigurationError(.unreadable(file: file, reason: reason))
    }
    /// The file is not JSON; line and column are 1-based.
    public static func invalidJSON(file: String, line: Int, column: Int, problem: String) -> ConfigurationError {
        ConfigurationError(.invalidJSON(file: file, line: line, column: column, problem: problem))
    }
    /// A value is missing or wrong at `path`.
    public static func invalid(file: String, path: String, problem: String) -> ConfigurationError {
        ConfigurationError(.invalid(file: file, path: path, problem: problem))
    }
    /// Two entries name the same database prefix.
    public static func duplicatePrefix(file: String, prefix: String, entries: [String]) -> ConfigurationError {
        ConfigurationError(.duplicatePrefix(file: file, prefix: prefix, entries: entries))
    }
    /// No entry answers the name, mode or mapping asked for.
    public static func noSuchClient(file: String, what: String) -> ConfigurationError {
        ConfigurationError(.noSuchClient(file: file, what: what))
    }
}

extension ConfigurationError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``ConfigurationError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case unreadable(file: String, reason: String)
        case invalidJSON(file: String, line: Int, column: Int, problem: String)
        case invalid(file: String, path: String, problem: String)
        case duplicatePrefix(file: String, prefix: String, entries: [String])
        case noSuchClient(file: String, what: String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .unreadable(let file, let reason): "\(file): cannot read: \(reason)"
            case .invalidJSON(let file, let line, let column, let problem): "\(file):\(line):\(column): invalid JSON: \(problem)"
            case .invalid(let file, let path, let problem): "\(file): \(path): \(problem)"
            case .duplicatePrefix(let file, let prefix, let entries):
                "\(file): AppSync entries \(entries.joined(separator: " and ")) share ClientDatabasePrefix '\(prefix)'; each client needs its own"
            case .noSuchClient(let file, let what): "\(file): no AppSync entry for \(what)"
            }
        }
    }
}

extension ConfigurationError.Kind {
    /// `Configuration.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .unreadable: "Configuration.unreadable"
        case .invalidJSON: "Configuration.invalidJSON"
        case .invalid: "Configuration.invalid"
        case .duplicatePrefix: "Configuration.duplicatePrefix"
        case .noSuchClient: "Configuration.noSuchClient"
        }
    }
}

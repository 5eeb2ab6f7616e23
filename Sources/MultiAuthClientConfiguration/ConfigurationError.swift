public import MultiAuthCore

/// Why an `awsconfiguration.json` cannot be used. Every message names the file and the JSON
/// path (`AppSync.friendly_name_AWS_IAM.Region: missing`), never a key or secret.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(file: String, reason: String)
    /// The file is not JSON; line and column are 1-based.
    case invalidJSON(file: String, line: Int, column: Int, problem: String)
    /// A value is missing or wrong at `path`.
    case invalid(file: String, path: String, problem: String)
    /// Two entries name the same database prefix.
    case duplicatePrefix(file: String, prefix: String, entries: [String])
    /// No entry answers the name, mode or mapping asked for.
    case noSuchClient(file: String, what: String)

    public var description: String {
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

extension ConfigurationError: CodedError {
    /// `Configuration.` and the case's name, fixed once published.
    public var code: ErrorCode {
        switch self {
        case .unreadable: "Configuration.unreadable"
        case .invalidJSON: "Configuration.invalidJSON"
        case .invalid: "Configuration.invalid"
        case .duplicatePrefix: "Configuration.duplicatePrefix"
        case .noSuchClient: "Configuration.noSuchClient"
        }
    }
}

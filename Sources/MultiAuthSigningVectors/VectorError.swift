/// Why a vector folder or file could not be used.
package enum VectorError: Error, Sendable, CustomStringConvertible {
    /// A file or folder could not be read.
    case unreadable(path: String, reason: String)
    /// A file's contents are not in the expected format.
    case malformed(path: String, reason: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .malformed(let path, let reason): "\(path): \(reason)"
        }
    }
}

package import MultiAuthCore

/// Why an API definition cannot be served: where in the document, and what is wrong there.
package struct APIDefinitionError: CodedError, Sendable, Equatable {
    package let kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on.
    package var code: ErrorCode { kind.code }
    /// What failed and where, in one line.
    package var message: String { kind.description }
    /// The error that caused this one, when there is one.
    package var underlying: (any Error & Sendable)? { nil }
    package var description: String { message }

    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        /// The file is larger than definitions are read.
        case tooLarge(bytes: Int, limit: Int)
        /// Not JSON or YAML OpenAPI 3.0, or OpenAPIKit refused it (a `$ref` cycle, a missing component).
        case unreadable(String)
        /// A value at `place` that is not honoured (an unknown extension value, a Lambda ARN).
        case refused(place: String, problem: String)
        /// Two routes would answer the same requests.
        case conflict(String, String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .tooLarge(let bytes, let limit): "the definition is \(bytes) bytes; at most \(limit) are read"
            case .unreadable(let problem): "the definition cannot be read: \(problem)"
            case .refused(let place, let problem): "\(place): \(problem)"
            case .conflict(let first, let second): "routes \(first) and \(second) would answer the same requests"
            }
        }

        package var code: ErrorCode {
            switch self {
            case .tooLarge: "APIDefinition.tooLarge"
            case .unreadable: "APIDefinition.unreadable"
            case .refused: "APIDefinition.refused"
            case .conflict: "APIDefinition.conflict"
            }
        }
    }

    package static func refused(_ place: String, _ problem: String) -> APIDefinitionError { APIDefinitionError(.refused(place: place, problem: problem)) }
}

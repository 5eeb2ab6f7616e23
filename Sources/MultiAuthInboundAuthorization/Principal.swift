/// Who a verified request came from, and how it proved it.
public struct Principal: Sendable, Equatable, CustomStringConvertible {
    /// How a request proved who sent it, named as API Gateway and AppSync name their modes.
    public enum Mode: String, Sendable, Equatable {
        /// A SigV4 or SigV4a signature (header or presigned).
        case iam = "AWS_IAM"
        /// An `x-api-key` header.
        case apiKey = "API_KEY"
        /// A JWT from a user pool or OIDC provider, in `Authorization`.
        case jwt = "JWT"
    }

    /// The mode that succeeded.
    public let mode: Mode
    /// The access key id, the API key's name, or the JWT's `sub`.
    public let name: String

    /// Creates a principal.
    public init(mode: Mode, name: String) {
        self.mode = mode
        self.name = name
    }

    /// `AWS_IAM AKID…`: the mode and the name, neither of them a secret.
    public var description: String { "\(mode.rawValue) \(name)" }
}

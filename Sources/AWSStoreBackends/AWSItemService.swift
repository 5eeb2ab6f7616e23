import CredentialProviders
import CredentialStore

/// A named-value service a store can live in (Secrets Manager, SSM Parameter Store): what
/// ``AWSStoreBackend`` needs of it. Values are bytes; versions are strings each service
/// defines. ``swap(_:_:expecting:)`` is a compare-and-swap: of all writers that read one
/// version, exactly one replaces it, so no write is lost whatever the lock does.
protocol AWSItemService: Sendable {
    /// `secretsmanager://REGION/NAME` or `ssm://REGION/NAME`.
    var location: String { get }
    /// The current value of `name` and its version, or nil when there is none.
    func value(_ name: String) async throws(AWSJSONCallError) -> (bytes: [UInt8], version: String)?
    /// The version of `name`, or nil when there is none.
    func version(_ name: String) async throws(AWSJSONCallError) -> String?
    /// Creates `name` and returns its version; nil when it exists already (left as it is).
    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) -> String?
    /// Replaces `name`'s value only if its version is still `version`, atomically, and
    /// returns the new version; nil when another writer replaced it first (nothing is changed).
    func swap(_ name: String, _ bytes: [UInt8], expecting version: String) async throws(AWSJSONCallError) -> String?
    /// The service's name for the item that holds the store `name`'s part `suffix` (empty:
    /// the store itself).
    func itemName(_ name: String, suffix: String) -> String
}

extension AWSJSONCallError {
    /// The error code when the service refused, else nil.
    var refusalCode: String? {
        if case .refused(_, let code, _) = self { return code }
        return nil
    }

    /// What a message says of this failure.
    var reason: String {
        switch self {
        case .invalidSetting(let problem): problem
        case .credentials(let error): "no credentials to sign with: \(error)"
        case .unreachable(let problem): problem
        case .refused(let action, let code, let message): "\(action) refused: \(code)" + (message.isEmpty ? "" : ": \(message)")
        case .malformedAnswer(let problem): "malformed answer: \(problem)"
        }
    }
}

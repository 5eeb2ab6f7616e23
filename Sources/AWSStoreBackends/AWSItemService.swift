import CredentialProviders
import CredentialStore

/// A named-value service a store can live in (Secrets Manager, SSM Parameter Store): what
/// ``AWSStoreBackend`` needs of it. Values are bytes; their versions are the service's own.
protocol AWSItemService: Sendable {
    /// `secretsmanager://REGION/NAME` or `ssm://REGION/NAME`.
    var location: String { get }
    /// The value of `name` and its version, or nil when there is none.
    func value(_ name: String) async throws(AWSJSONCallError) -> (bytes: [UInt8], version: String)?
    /// The version of `name`, or nil when there is none (no value is decrypted).
    func version(_ name: String) async throws(AWSJSONCallError) -> String?
    /// Creates `name`; false when it exists already (it is left as it is).
    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError) -> Bool
    /// Writes a new version of `name`.
    func put(_ name: String, _ bytes: [UInt8]) async throws(AWSJSONCallError)
    /// Removes `name` at once (no recovery window).
    func delete(_ name: String) async throws(AWSJSONCallError)
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

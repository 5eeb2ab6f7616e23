import MultiAuthAWSClient
import MultiAuthCredentials
import MultiAuthStore

/// A named-value service a store can live in (Secrets Manager, SSM Parameter Store): what
/// ``AWSStoreBackend`` needs of it. Values are bytes; versions are strings each service
/// defines. ``swap(_:_:expecting:)`` is a compare-and-swap: of all writers that read one
/// version, exactly one replaces it, so no write is lost whatever the lock does.
protocol AWSItemService: Sendable {
    /// `secretsmanager://REGION/NAME` or `ssm://REGION/NAME`.
    var location: String { get }
    /// The current value of `name` and its version, or nil when there is none.
    func value(_ name: String) async throws(AWSCallError) -> (bytes: [UInt8], version: String)?
    /// The version of `name`, or nil when there is none.
    func version(_ name: String) async throws(AWSCallError) -> String?
    /// Creates `name` and returns its version; nil when it exists already (left as it is).
    func create(_ name: String, _ bytes: [UInt8]) async throws(AWSCallError) -> String?
    /// Replaces `name`'s value only if its version is still `version`, atomically, and
    /// returns the new version; nil when another writer replaced it first (nothing is changed).
    func swap(_ name: String, _ bytes: [UInt8], expecting version: String) async throws(AWSCallError) -> String?
    /// The service's name for the item that holds the store `name`'s part `suffix` (empty:
    /// the store itself).
    func itemName(_ name: String, suffix: String) -> String
}

extension AWSCallError {
    /// The error code when the service refused, else nil.
    var refusalCode: String? { kind == .service ? serviceCode : nil }

    /// What a message says of this failure.
    var reason: String { operation.isEmpty ? serviceMessage : description }

    /// A value the service cannot hold.
    static func invalidSetting(_ problem: String) -> AWSCallError {
        AWSCallError(.invalidSetting, service: "store", operation: "", message: problem)
    }

    /// An item that holds what MultiAuth did not write.
    static func malformedAnswer(_ problem: String) -> AWSCallError {
        AWSCallError(.malformedAnswer, service: "store", operation: "", message: problem)
    }
}

import MultiAuthCrypto

/// The environment a secret belongs to: the identifying configuration it was made for
/// (region, user pool id, app client id, identity pool id, API URL, OIDC issuer and
/// client id, ...). None of these values is secret; all of them tell backends apart.
public struct StoreEnvironment: Sendable, Hashable, Codable {
    /// Field names and values, such as `region` → `us-east-1`.
    public let fields: [String: String]

    /// Creates an environment; an empty one matches only items stored without one.
    public init(_ fields: [String: String] = [:]) {
        self.fields = fields
    }

    /// Well-known field names, so every part of MultiAuth spells them the same way.
    public enum Field {
        /// The AWS region of the backend.
        public static let region = "region"
        /// The Cognito user pool id.
        public static let userPoolId = "userPoolId"
        /// The Cognito app client id.
        public static let appClientId = "appClientId"
        /// The Cognito identity pool id.
        public static let identityPoolId = "identityPoolId"
        /// The API endpoint the credentials are for.
        public static let apiURL = "apiUrl"
        /// The OpenID Connect issuer URL.
        public static let oidcIssuer = "oidcIssuer"
        /// The OpenID Connect client id.
        public static let oidcClientId = "oidcClientId"
    }

    /// SHA-256 over the sorted `name=value` lines: one value that identifies the environment.
    public var fingerprint: String {
        let lines = fields.keys.sorted().map { "\($0)=\(fields[$0] ?? "")\n" }.joined()
        return SHA256Hasher.hash(Array(lines.utf8)).hex
    }

    /// The names of the fields that differ from `other` (present in one only, or with
    /// different values), sorted. Values are never reported.
    public func differingFields(from other: StoreEnvironment) -> [String] {
        Set(fields.keys).union(other.fields.keys).filter { fields[$0] != other.fields[$0] }.sorted()
    }
}

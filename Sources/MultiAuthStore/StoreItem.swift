/// What `list` shows of an item: everything but the secret.
public struct StoreItemMetadata: Sendable, Equatable {
    /// The service the secret is for (for example `cognito-idp:us-east-1_abc`).
    public let service: String
    /// The account within the service (for example a user name).
    public let account: String
    /// A human-readable label.
    public let label: String
    /// When the item was first stored (seconds since 1970).
    public let created: Int64
    /// When the item was last changed (seconds since 1970).
    public let modified: Int64
    /// The environment the item was made for.
    public let environment: StoreEnvironment
}

/// One stored item as kept inside the encrypted payload.
struct StoredItem: Codable, Sendable {
    var service: String
    var account: String
    /// The secret, base64 in the JSON payload.
    var secret: [UInt8]
    var label: String
    var created: Int64
    var modified: Int64
    var environment: StoreEnvironment

    var metadata: StoreItemMetadata {
        StoreItemMetadata(
            service: service, account: account, label: label, created: created, modified: modified,
            environment: environment)
    }

    func matches(service: String, account: String) -> Bool {
        self.service == service && self.account == account
    }

    enum CodingKeys: String, CodingKey {
        case service, account, secret, label, created, modified, environment
    }

    init(service: String, account: String, secret: [UInt8], label: String, created: Int64, modified: Int64,
         environment: StoreEnvironment) {
        self.service = service
        self.account = account
        self.secret = secret
        self.label = label
        self.created = created
        self.modified = modified
        self.environment = environment
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        account = try container.decode(String.self, forKey: .account)
        let encoded = try container.decode(String.self, forKey: .secret)
        guard let bytes = Base64.decode(encoded) else {
            throw DecodingError.dataCorruptedError(forKey: .secret, in: container, debugDescription: "not base64")
        }
        secret = bytes
        label = try container.decode(String.self, forKey: .label)
        created = try container.decode(Int64.self, forKey: .created)
        modified = try container.decode(Int64.self, forKey: .modified)
        environment = try container.decode(StoreEnvironment.self, forKey: .environment)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(account, forKey: .account)
        try container.encode(Base64.encode(secret), forKey: .secret)
        try container.encode(label, forKey: .label)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
        try container.encode(environment, forKey: .environment)
    }
}

/// The decrypted payload: every item of the store.
struct StorePayload: Codable, Sendable {
    var items: [StoredItem] = []
    /// Raised by every write; a reader that has seen a higher one refuses this image (an older
    /// image put back by someone who can write the backend but not read the store). Absent in
    /// images written before it was kept: 0.
    var generation: UInt64?
    /// The shared store this image belongs to (``StoreBackend/bindingName``), so that an image
    /// copied from another store under the same key is refused. Absent for files and in
    /// images written before it was kept.
    var store: String?
}

import MultiAuthCore
import MultiAuthCrypto

/// PublicKeyCredentialCreationOptionsJSON, read and checked as a browser does before it calls
/// the authenticator: the relying party against the origin, an ES256 key among the accepted
/// algorithms, a challenge and a user handle of sane sizes.
struct CreationOptions {
    let relyingPartyId: String
    let relyingPartyName: String
    let userId: [UInt8]
    let userName: String
    let userDisplayName: String
    let challenge: [UInt8]
    let excluded: [[UInt8]]
    let residentKey: Bool
    let userVerification: Bool

    /// COSE's ES256, the only key this client asks authenticators for.
    static let es256: Int64 = -7

    init(_ options: JSONValue, originHost: String) throws(WebAuthnError) {
        let fields = OptionFields(options, what: "the creation options")
        let rp = try fields.object("rp")
        relyingPartyId = rp["id"]?.stringValue ?? originHost
        try RelyingPartyCheck.check(relyingPartyId: relyingPartyId, host: originHost)
        relyingPartyName = rp["name"]?.stringValue ?? relyingPartyId
        let user = OptionFields(.object(try fields.object("user")), what: "the creation options' user")
        userId = try user.bytes("id")
        guard (1...64).contains(userId.count) else { throw WebAuthnError(.invalidOptions, "the user handle is \(userId.count) bytes; it must be 1 to 64") }
        userName = try user.string("name")
        userDisplayName = user.optionalString("displayName") ?? userName
        challenge = try fields.challenge()
        let algorithms = try fields.array("pubKeyCredParams").compactMap { $0.objectValue?["alg"]?.integerValue }
        guard algorithms.isEmpty || algorithms.contains(Self.es256) else {
            throw WebAuthnError(.invalidOptions, "the relying party accepts none of the keys this client makes (ES256, COSE -7): it asks for \(algorithms.map(String.init).joined(separator: ", "))")
        }
        excluded = try fields.credentialIds("excludeCredentials")
        let selection = fields.optionalObject("authenticatorSelection") ?? [:]
        residentKey = selection["residentKey"]?.stringValue == "required" || selection["requireResidentKey"] == .bool(true)
        userVerification = selection["userVerification"]?.stringValue == "required"
    }
}

/// PublicKeyCredentialRequestOptionsJSON, checked as a browser does.
struct RequestOptions {
    let relyingPartyId: String
    let challenge: [UInt8]
    let allowed: [[UInt8]]
    let userVerification: Bool

    init(_ options: JSONValue, originHost: String) throws(WebAuthnError) {
        let fields = OptionFields(options, what: "the request options")
        relyingPartyId = fields.optionalString("rpId") ?? originHost
        try RelyingPartyCheck.check(relyingPartyId: relyingPartyId, host: originHost)
        challenge = try fields.challenge()
        allowed = try fields.credentialIds("allowCredentials")
        userVerification = fields.optionalString("userVerification") == "required"
    }
}

/// Typed reads of an options object, each failure naming the member.
private struct OptionFields {
    let members: [String: JSONValue]
    let what: String

    init(_ value: JSONValue, what: String) {
        members = value.objectValue ?? [:]
        self.what = what
    }

    func object(_ key: String) throws(WebAuthnError) -> [String: JSONValue] {
        guard let value = members[key]?.objectValue else { throw missing(key, "an object") }
        return value
    }

    func optionalObject(_ key: String) -> [String: JSONValue]? { members[key]?.objectValue }

    func string(_ key: String) throws(WebAuthnError) -> String {
        guard let value = members[key]?.stringValue, !value.isEmpty else { throw missing(key, "a string") }
        return value
    }

    func optionalString(_ key: String) -> String? { members[key]?.stringValue }

    func array(_ key: String) throws(WebAuthnError) -> [JSONValue] {
        switch members[key] {
        case nil, .null?: return []
        case .array(let items)?: return items
        default: throw missing(key, "an array")
        }
    }

    func bytes(_ key: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = members[key]?.stringValue, let bytes = try? Base64.decode(text) else { throw missing(key, "base64url") }
        return bytes
    }

    /// The challenge: at least 16 bytes, as WebAuthn §13.4.3 asks of relying parties.
    func challenge() throws(WebAuthnError) -> [UInt8] {
        let challenge = try bytes("challenge")
        guard challenge.count >= 16 else { throw WebAuthnError(.invalidOptions, "\(what) have a challenge of \(challenge.count) bytes; at least 16 are needed") }
        return challenge
    }

    /// The ids of a list of PublicKeyCredentialDescriptorJSON.
    func credentialIds(_ key: String) throws(WebAuthnError) -> [[UInt8]] {
        try array(key).map { (item) throws(WebAuthnError) -> [UInt8] in
            try OptionFields(item, what: "an entry of \(what)' \(key)").bytes("id")
        }
    }

    private func missing(_ key: String, _ kind: String) -> WebAuthnError {
        WebAuthnError(.invalidOptions, "\(what) have no \(key) (\(kind))")
    }
}

/// What a WebAuthn client asks of an authenticator (CTAP2's authenticatorMakeCredential):
/// the relying party, the user, and the hash of the client data the browser part made.
public struct MakeCredentialRequest: Sendable {
    /// The relying party's id (a domain) and display name.
    public var relyingPartyId: String
    public var relyingPartyName: String
    /// The user's handle (1 to 64 bytes), name and display name.
    public var userId: [UInt8]
    public var userName: String
    public var userDisplayName: String
    /// SHA-256 of the client data JSON.
    public var clientDataHash: [UInt8]
    /// Credentials the authenticator must not already hold.
    public var excludeCredentialIds: [[UInt8]]
    /// Whether a discoverable credential (resident key) is asked for.
    public var residentKey: Bool
    /// Whether user verification (a PIN, a fingerprint) is required.
    public var userVerification: Bool
}

/// What the authenticator made: its authenticator data (with the new credential's public
/// key) and the credential's id.
public struct MadeCredential: Sendable {
    /// The raw authenticator data (rpIdHash, flags, counter, attested credential data).
    public var authenticatorData: [UInt8]
    /// The new credential's id.
    public var credentialId: [UInt8]

    /// - Parameters:
    ///   - authenticatorData: the raw authenticator data.
    ///   - credentialId: the new credential's id.
    public init(authenticatorData: [UInt8], credentialId: [UInt8]) {
        self.authenticatorData = authenticatorData
        self.credentialId = credentialId
    }
}

/// An assertion request (CTAP2's authenticatorGetAssertion).
public struct GetAssertionRequest: Sendable {
    /// The relying party's id.
    public var relyingPartyId: String
    /// SHA-256 of the client data JSON.
    public var clientDataHash: [UInt8]
    /// The credentials the relying party accepts; empty for a discoverable credential.
    public var allowCredentialIds: [[UInt8]]
    /// Whether user verification is required.
    public var userVerification: Bool
}

/// An authenticator's assertion.
public struct Assertion: Sendable {
    /// The raw authenticator data.
    public var authenticatorData: [UInt8]
    /// The DER ECDSA signature over the authenticator data and the client data hash.
    public var signature: [UInt8]
    /// The credential used.
    public var credentialId: [UInt8]
    /// The user handle, when the credential is discoverable.
    public var userHandle: [UInt8]?

    /// - Parameters:
    ///   - authenticatorData: the raw authenticator data.
    ///   - signature: the signature.
    ///   - credentialId: the credential used.
    ///   - userHandle: the user handle, if the authenticator gave one.
    public init(authenticatorData: [UInt8], signature: [UInt8], credentialId: [UInt8], userHandle: [UInt8]?) {
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.credentialId = credentialId
        self.userHandle = userHandle
    }
}

/// An authenticator holding passkeys: ``FIDO2Authenticator`` for security keys through
/// libfido2, or one of an app's own.
public protocol PasskeyAuthenticator: Sendable {
    /// Makes an ES256 credential for `request`.
    func makeCredential(_ request: MakeCredentialRequest) async throws(WebAuthnError) -> MadeCredential
    /// Signs `request`'s client data hash with a credential of its relying party.
    func getAssertion(_ request: GetAssertionRequest) async throws(WebAuthnError) -> Assertion
}

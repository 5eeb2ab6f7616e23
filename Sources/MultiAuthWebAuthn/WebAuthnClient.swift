public import MultiAuthCore
import MultiAuthCrypto

/// The browser's half of WebAuthn for a program with no browser: it reads a relying party's
/// options (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON), makes the checks a
/// browser makes for `origin`, writes the client data, has the authenticator sign, and returns
/// the credential as RegistrationResponseJSON / AuthenticationResponseJSON.
///
/// ```swift
/// let client = WebAuthnClient(origin: "https://auth.example.com", authenticator: FIDO2Authenticator())
/// let credential = try await client.register(options)
/// ```
public struct WebAuthnClient: Sendable {
    /// The origin the client data names, as a page's would be (`https://HOST[:PORT]`); `nil`
    /// for `https://` and the relying party's id, as an app associated with that domain.
    public let origin: String?
    /// The authenticator that holds the passkeys.
    public let authenticator: any PasskeyAuthenticator

    /// - Parameters:
    ///   - origin: `https://HOST[:PORT]` (or `http://localhost[:PORT]`); relying parties must be
    ///     its host or a domain above it. `nil`: each relying party's own `https://` origin.
    ///   - authenticator: where passkeys are made and used.
    public init(origin: String?, authenticator: any PasskeyAuthenticator) {
        self.origin = origin
        self.authenticator = authenticator
    }

    /// Makes a passkey for the relying party and user `options` name (`navigator.credentials.create`).
    /// - Parameter options: PublicKeyCredentialCreationOptionsJSON, or an object holding it under `publicKey`.
    /// - Returns: RegistrationResponseJSON, attestation "none".
    public func register(_ options: JSONValue) async throws(WebAuthnError) -> JSONValue {
        let options = options.unwrappingPublicKey
        let origin = try origin(for: options.objectValue?["rp"]?.objectValue?["id"]?.stringValue)
        let asked = try CreationOptions(options, originHost: try RelyingPartyCheck.host(ofOrigin: origin))
        let clientData = ClientData(type: "webauthn.create", challenge: asked.challenge, origin: origin)
        let made = try await authenticator.makeCredential(MakeCredentialRequest(
            relyingPartyId: asked.relyingPartyId, relyingPartyName: asked.relyingPartyName, userId: asked.userId, userName: asked.userName,
            userDisplayName: asked.userDisplayName, clientDataHash: clientData.hash, excludeCredentialIds: asked.excluded,
            residentKey: asked.residentKey, userVerification: asked.userVerification))
        let data = AuthenticatorData(bytes: made.authenticatorData)
        try data.check(relyingPartyId: asked.relyingPartyId, attested: true)
        let id = Base64.encodeURL(made.credentialId)
        return .object([
            "id": .string(id), "rawId": .string(id), "type": .string("public-key"), "authenticatorAttachment": .string("cross-platform"),
            "clientExtensionResults": .object([:]),
            "response": .object([
                "clientDataJSON": .string(Base64.encodeURL(clientData.json)), "attestationObject": .string(Base64.encodeURL(data.noneAttestationObject)),
                "transports": .array([.string("usb")]),
            ]),
        ])
    }

    /// Signs the relying party's challenge with a passkey (`navigator.credentials.get`).
    /// - Parameter options: PublicKeyCredentialRequestOptionsJSON, or an object holding it under `publicKey`.
    /// - Returns: AuthenticationResponseJSON.
    public func authenticate(_ options: JSONValue) async throws(WebAuthnError) -> JSONValue {
        let options = options.unwrappingPublicKey
        let origin = try origin(for: options.objectValue?["rpId"]?.stringValue)
        let asked = try RequestOptions(options, originHost: try RelyingPartyCheck.host(ofOrigin: origin))
        let clientData = ClientData(type: "webauthn.get", challenge: asked.challenge, origin: origin)
        let assertion = try await authenticator.getAssertion(GetAssertionRequest(
            relyingPartyId: asked.relyingPartyId, clientDataHash: clientData.hash, allowCredentialIds: asked.allowed,
            userVerification: asked.userVerification))
        try AuthenticatorData(bytes: assertion.authenticatorData).check(relyingPartyId: asked.relyingPartyId, attested: false)
        guard asked.allowed.isEmpty || asked.allowed.contains(assertion.credentialId) else {
            throw WebAuthnError(.malformedAuthenticatorData, "the authenticator signed with a credential the relying party did not allow")
        }
        let id = Base64.encodeURL(assertion.credentialId)
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64.encodeURL(clientData.json)), "authenticatorData": .string(Base64.encodeURL(assertion.authenticatorData)),
            "signature": .string(Base64.encodeURL(assertion.signature)),
        ]
        if let handle = assertion.userHandle { response["userHandle"] = .string(Base64.encodeURL(handle)) }
        return .object([
            "id": .string(id), "rawId": .string(id), "type": .string("public-key"), "authenticatorAttachment": .string("cross-platform"),
            "clientExtensionResults": .object([:]), "response": .object(response),
        ])
    }
}

extension WebAuthnClient {
    /// The origin, lower-cased: ``origin``, else `https://` and the relying party's id.
    private func origin(for relyingParty: String?) throws(WebAuthnError) -> String {
        if let origin { return origin.lowercased() }
        guard let relyingParty, !relyingParty.isEmpty else {
            throw WebAuthnError(.invalidOptions, "the options name no relying party, and no origin was given to stand for one")
        }
        return "https://" + relyingParty.lowercased()
    }
}

/// CollectedClientData (WebAuthn §5.8.1), serialized as browsers do (§5.8.1.1): type,
/// challenge, origin, crossOrigin, in that order.
struct ClientData {
    let json: [UInt8]

    /// `challenge` is re-encoded from its bytes and `origin` was checked by
    /// ``RelyingPartyCheck``: neither needs escaping.
    init(type: String, challenge: [UInt8], origin: String) {
        json = Array(#"{"type":"\#(type)","challenge":"\#(Base64.encodeURL(challenge))","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    var hash: [UInt8] { SHA256Hasher.hash(json).bytes }
}

extension JSONValue {
    /// `{"publicKey": {...}}` (CredentialCreationOptions as a page passes it) gives its member.
    fileprivate var unwrappingPublicKey: JSONValue {
        if case .object(let members) = self, let inner = members["publicKey"], case .object = inner { return inner }
        return self
    }
}

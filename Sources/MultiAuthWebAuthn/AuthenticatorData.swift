import MultiAuthCrypto

/// The parts of authenticator data (WebAuthn §6.1) a client checks before handing it on: the
/// relying party's hash and the user-presence flag.
struct AuthenticatorData {
    static let userPresent: UInt8 = 0x01
    static let attestedCredentialData: UInt8 = 0x40

    let bytes: [UInt8]

    /// Refuses data for another relying party, without the user's presence, or (when
    /// `attested`) without the new credential.
    func check(relyingPartyId: String, attested: Bool) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw WebAuthnError(.malformedAuthenticatorData, "the authenticator data is \(bytes.count) bytes, shorter than 37") }
        guard Array(bytes[0..<32]) == Array(SHA256Hasher.hash(Array(relyingPartyId.utf8)).bytes) else {
            throw WebAuthnError(.malformedAuthenticatorData, "the authenticator answered for another relying party than \(relyingPartyId)")
        }
        let flags = bytes[32]
        guard flags & Self.userPresent != 0 else { throw WebAuthnError(.malformedAuthenticatorData, "the authenticator did not confirm the user's presence") }
        guard !attested || flags & Self.attestedCredentialData != 0 else {
            throw WebAuthnError(.malformedAuthenticatorData, "the authenticator made no credential (no attested credential data)")
        }
    }

    /// The attestation object of a credential with attestation "none" (WebAuthn §8.7), in
    /// CTAP2's canonical CBOR: {"fmt": "none", "attStmt": {}, "authData": bytes}.
    var noneAttestationObject: [UInt8] {
        var cbor: [UInt8] = [0xa3]
        cbor += Self.text("fmt") + Self.text("none")
        cbor += Self.text("attStmt") + [0xa0]
        cbor += Self.text("authData") + Self.header(major: 2, count: bytes.count) + bytes
        return cbor
    }

    private static func text(_ value: String) -> [UInt8] { header(major: 3, count: value.utf8.count) + Array(value.utf8) }

    private static func header(major: UInt8, count: Int) -> [UInt8] {
        let type = major << 5
        switch count {
        case ..<24: return [type | UInt8(count)]
        case ..<0x100: return [type | 24, UInt8(count)]
        case ..<0x10000: return [type | 25, UInt8(count >> 8), UInt8(count & 0xff)]
        default: return [type | 26, UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
        }
    }
}

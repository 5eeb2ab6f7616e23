import MultiAuthCore
import MultiAuthCrypto
import Synchronization
import Testing

@testable import MultiAuthWebAuthn

/// The browser's checks and the bytes it writes, with an authenticator that records what it
/// is asked and answers with authenticator data built here by hand (WebAuthn §6.1).
@Suite struct WebAuthnClientTests {
    /// Records requests; answers with data for `answerFor` (a relying party) and `flags`.
    final class RecordingAuthenticator: PasskeyAuthenticator {
        let answerFor: String
        let flags: UInt8
        let made = Mutex<MakeCredentialRequest?>(nil)
        let asked = Mutex<GetAssertionRequest?>(nil)

        init(answerFor: String, flags: UInt8 = 0x41) {
            self.answerFor = answerFor
            self.flags = flags
        }

        var data: [UInt8] { SHA256Hasher.hash(Array(answerFor.utf8)).bytes + [flags, 0, 0, 0, 7] }

        func makeCredential(_ request: MakeCredentialRequest) async throws(WebAuthnError) -> MadeCredential {
            made.withLock { $0 = request }
            return MadeCredential(authenticatorData: data, credentialId: [1, 2, 3])
        }

        func getAssertion(_ request: GetAssertionRequest) async throws(WebAuthnError) -> Assertion {
            asked.withLock { $0 = request }
            return Assertion(authenticatorData: data, signature: [0x30, 0x00], credentialId: [1, 2, 3], userHandle: Array("u-1".utf8))
        }
    }

    static let challenge = "AAECAwQFBgcICQoLDA0ODw"  // bytes 0 ... 15

    static func creation(rp: String = "example.com", algorithms: [Int] = [-8, -7]) throws -> JSONValue {
        try JSONValue.decode(#"""
            {"publicKey": {"rp": {"id": "\#(rp)", "name": "Example"}, "user": {"id": "dS0x", "name": "alice", "displayName": "Alice"},
             "challenge": "\#(challenge)", "pubKeyCredParams": [\#(algorithms.map { #"{"type": "public-key", "alg": \#($0)}"# }.joined(separator: ","))],
             "excludeCredentials": [{"type": "public-key", "id": "CQk"}], "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"}}}
            """#)
    }

    /// The client data is the browser's serialization byte for byte, the authenticator gets its
    /// hash and the options' user, rp and exclusions, and the attestation object is CBOR
    /// {"fmt": "none", "attStmt": {}, "authData": ...} (RFC 8949, by hand).
    @Test func registrationWritesTheBrowsersBytes() async throws {
        let authenticator = RecordingAuthenticator(answerFor: "example.com")
        let client = WebAuthnClient(origin: "https://login.example.com", authenticator: authenticator)
        let response = try await client.register(try Self.creation())
        let expectedClientData = #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODw","origin":"https://login.example.com","crossOrigin":false}"#
        let members = try #require(response.objectValue?["response"]?.objectValue)
        #expect(try Base64.decode(#require(members["clientDataJSON"]?.stringValue)) == Array(expectedClientData.utf8))
        let request = try #require(authenticator.made.withLock { $0 })
        #expect(request.clientDataHash == SHA256Hasher.hash(Array(expectedClientData.utf8)).bytes)
        #expect(request.relyingPartyId == "example.com" && request.userId == Array("u-1".utf8) && request.userDisplayName == "Alice")
        #expect(request.excludeCredentialIds == [[9, 9]] && request.residentKey && !request.userVerification)
        let header: [UInt8] = [0xa3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8) + [0xa0, 0x68] + Array("authData".utf8)
        #expect(try Base64.decode(#require(members["attestationObject"]?.stringValue)) == header + [0x58, 37] + authenticator.data)
        #expect(response.objectValue?["id"] == .string("AQID") && response.objectValue?["type"] == .string("public-key"))
    }

    @Test func assertionCarriesSignatureAndUserHandle() async throws {
        let authenticator = RecordingAuthenticator(answerFor: "example.com", flags: 0x01)
        let client = WebAuthnClient(origin: "https://example.com:8443", authenticator: authenticator)
        let options = try JSONValue.decode(#"{"rpId": "example.com", "challenge": "\#(Self.challenge)", "allowCredentials": [{"type": "public-key", "id": "AQID"}]}"#)
        let response = try await client.authenticate(options)
        let members = try #require(response.objectValue?["response"]?.objectValue)
        let clientData = #"{"type":"webauthn.get","challenge":"AAECAwQFBgcICQoLDA0ODw","origin":"https://example.com:8443","crossOrigin":false}"#
        #expect(try Base64.decode(#require(members["clientDataJSON"]?.stringValue)) == Array(clientData.utf8))
        #expect(members["signature"] == .string("MAA") && members["userHandle"] == .string("dS0x"))
        #expect(authenticator.asked.withLock { $0?.allowCredentialIds } == [[1, 2, 3]])
    }

    /// A browser's refusals: another site's relying party, a bare public suffix, plain http,
    /// a missing ES256, a short challenge; and authenticator data for another party or without
    /// the user's presence.
    @Test(arguments: [
        ("https://login.example.com", "evil.com", [-7], WebAuthnError.Code.relyingPartyMismatch),
        ("https://login.example.com", "com", [-7], .relyingPartyMismatch),
        ("https://login.example.com", "xample.com", [-7], .relyingPartyMismatch),
        ("http://login.example.com", "example.com", [-7], .relyingPartyMismatch),
        ("https://login.example.com/path", "example.com", [-7], .relyingPartyMismatch),
        ("https://login.example.com", "example.com", [-257], .invalidOptions),
    ])
    func refusedAsABrowserRefuses(origin: String, rp: String, algorithms: [Int], code: WebAuthnError.Code) async throws {
        let authenticator = RecordingAuthenticator(answerFor: rp)
        let client = WebAuthnClient(origin: origin, authenticator: authenticator)
        let error = await #expect(throws: WebAuthnError.self) { try await client.register(try Self.creation(rp: rp, algorithms: algorithms)) }
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(authenticator.made.withLock { $0 } == nil)
    }

    @Test func authenticatorAnswersABrowserWouldRefuse() async throws {
        let short = try JSONValue.decode(#"{"rpId": "example.com", "challenge": "AAEC"}"#)
        let client = WebAuthnClient(origin: "https://example.com", authenticator: RecordingAuthenticator(answerFor: "example.com"))
        await #expect { try await client.authenticate(short) } throws: { ($0 as? WebAuthnError)?.code == .invalidOptions }
        let options = try JSONValue.decode(#"{"rpId": "example.com", "challenge": "\#(Self.challenge)"}"#)
        let other = WebAuthnClient(origin: "https://example.com", authenticator: RecordingAuthenticator(answerFor: "other.example.com"))
        await #expect { try await other.authenticate(options) } throws: { ($0 as? WebAuthnError)?.code == .malformedAuthenticatorData }
        let absent = WebAuthnClient(origin: "https://example.com", authenticator: RecordingAuthenticator(answerFor: "example.com", flags: 0x40))
        await #expect { try await absent.authenticate(options) } throws: { ($0 as? WebAuthnError)?.message.contains("presence") == true }
        let notMade = WebAuthnClient(origin: "https://example.com", authenticator: RecordingAuthenticator(answerFor: "example.com", flags: 0x01))
        await #expect { try await notMade.register(try Self.creation()) } throws: { ($0 as? WebAuthnError)?.message.contains("no credential") == true }
    }

    /// No authenticator at the path: libfido2 opens nothing and the error says so.
    @Test func anAbsentAuthenticatorIsNamed() async throws {
        let client = WebAuthnClient(origin: "https://example.com", authenticator: FIDO2Authenticator(device: "unix:/nonexistent/authenticator.sock", timeoutMilliseconds: 2000))
        let options = try JSONValue.decode(#"{"rpId": "example.com", "challenge": "\#(Self.challenge)"}"#)
        let error = await #expect(throws: WebAuthnError.self) { try await client.authenticate(options) }
        #expect(error?.code == .authenticatorAbsent && error?.message.contains("/nonexistent/authenticator.sock") == true, "\(String(describing: error))")
    }
}

/// The PIN never reaches a description, a debug description or a dump.
@Test func theAuthenticatorsPINIsNeverDescribed() {
    let authenticator = FIDO2Authenticator(device: "/dev/hidraw3", pin: Array("271828".utf8))
    var dumped = ""
    dump(authenticator, to: &dumped)
    for text in ["\(authenticator)", String(reflecting: authenticator), dumped, "\(WebAuthnClient(origin: nil, authenticator: authenticator))"] {
        #expect(!text.contains("271828") && !text.contains("50, 55, 49") && text.contains("/dev/hidraw3"), "\(text)")
    }
}

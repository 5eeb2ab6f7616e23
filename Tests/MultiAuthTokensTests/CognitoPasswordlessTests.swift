import HTTPTypes
import MultiAuthCore
import MultiAuthTesting
import MultiAuthTokens
import Synchronization
import Testing

/// WEB_AUTHN and passwordless sign-up in process, against a scripted Cognito: what each call
/// carries (the shapes are botocore's for these operations) and how the answers are used. The
/// passkey itself (client data, authenticator) is MultiAuthWebAuthnTests'; the stand-in and
/// fido2's verification are in ClientAndTokenTests.
@Suite struct CognitoPasswordlessTests {
    /// Answers WEB_AUTHN with a fixed credential and email codes with 123456; records what it saw.
    final class Responder: CognitoChallengeResponder {
        let options = Mutex<JSONValue?>(nil)
        let codeAsked = Mutex<(CognitoMFAKind, String?)?>(nil)

        func passkeyAssertion(for options: JSONValue) async throws(TokenError) -> JSONValue {
            self.options.withLock { $0 = options }
            return .object(["id": .string("cred-1")])
        }

        func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8] {
            codeAsked.withLock { $0 = (kind, destination) }
            return Array("123456".utf8)
        }

        func newPassword(for username: String) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("NEW_PASSWORD_REQUIRED") }
        func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind { throw .unsupportedChallenge("SELECT_MFA_TYPE") }
        func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("MFA_SETUP") }
        func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor { throw .unsupportedChallenge("SELECT_CHALLENGE") }
        func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("CUSTOM_CHALLENGE") }
    }

    /// A responder that answers nothing and leaves WEB_AUTHN to the protocol's default.
    struct NoAuthenticator: CognitoChallengeResponder {
        func newPassword(for username: String) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("NEW_PASSWORD_REQUIRED") }
        func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge(kind.rawValue) }
        func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind { throw .unsupportedChallenge("SELECT_MFA_TYPE") }
        func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("MFA_SETUP") }
        func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor { throw .unsupportedChallenge("SELECT_CHALLENGE") }
        func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8] { throw .unsupportedChallenge("CUSTOM_CHALLENGE") }
    }

    static let tokens = #"{"AuthenticationResult": {"AccessToken": "unit-access", "IdToken": "unit-id", "RefreshToken": "unit-refresh", "ExpiresIn": 3600}, "ChallengeParameters": {}}"#

    static func body(_ sender: ScriptedSender, _ index: Int) throws -> JSONValue {
        try JSONValue.decode(String(decoding: sender.sent[index].body, as: UTF8.self))
    }

    @Test func webAuthnIsAnsweredWithTheResponderCredentialInTheChallengeSession() async throws {
        let options = #"{\"challenge\": \"AAECAwQFBgcICQoLDA0ODw\", \"rpId\": \"auth.unit.test\"}"#
        let challenge = #"{"ChallengeName": "WEB_AUTHN", "Session": "s-1", "ChallengeParameters": {"USERNAME": "alice", "CREDENTIAL_REQUEST_OPTIONS": "\#(options)"}}"#
        let sender = ScriptedSender([.answer(200, challenge), .answer(200, Self.tokens)])
        let responder = Responder()
        let signIn = try await CognitoAPITests.authenticator(sender).signIn(
            username: "alice", password: [], flow: .userAuth, preferred: .webAuthn, responder: responder)
        #expect(signIn.tokens.accessToken == "unit-access")
        #expect(responder.options.withLock { $0?.objectValue?["rpId"] } == .string("auth.unit.test"))
        let start = try Self.body(sender, 0).objectValue
        #expect(start?["AuthFlow"] == .string("USER_AUTH"))
        #expect(start?["AuthParameters"] == .object(["USERNAME": .string("alice"), "PREFERRED_CHALLENGE": .string("WEB_AUTHN")]))
        let answer = try Self.body(sender, 1).objectValue
        #expect(answer?["ChallengeName"] == .string("WEB_AUTHN") && answer?["Session"] == .string("s-1"))
        #expect(answer?["ChallengeResponses"] == .object(["USERNAME": .string("alice"), "CREDENTIAL": .string(#"{"id":"cred-1"}"#)]))
    }

    @Test func aResponderWithoutAnAuthenticatorRefusesWebAuthn() async throws {
        let challenge = #"{"ChallengeName": "WEB_AUTHN", "Session": "s-1", "ChallengeParameters": {"CREDENTIAL_REQUEST_OPTIONS": "{}"}}"#
        let sender = ScriptedSender([.answer(200, challenge)])
        let error = await #expect(throws: TokenError.self) {
            try await CognitoAPITests.authenticator(sender).signIn(
                username: "alice", password: [], flow: .userAuth, preferred: .webAuthn, responder: NoAuthenticator())
        }
        #expect(error == .unsupportedChallenge("WEB_AUTHN"))
        let missing = ScriptedSender([.answer(200, #"{"ChallengeName": "WEB_AUTHN", "Session": "s-1", "ChallengeParameters": {}}"#)])
        let malformed = await #expect(throws: TokenError.self) {
            try await CognitoAPITests.authenticator(missing).signIn(username: "alice", password: [], flow: .userAuth, preferred: .webAuthn, responder: Responder())
        }
        #expect("\(malformed!)".contains("CREDENTIAL_REQUEST_OPTIONS"))
    }

    /// SignUp without a password, the code asked as an email code at the masked destination,
    /// ConfirmSignUp, then USER_AUTH in ConfirmSignUp's session.
    @Test func signUpConfirmsWithTheCodeAndSignsInWithTheSession() async throws {
        let sender = ScriptedSender([
            .answer(200, #"{"UserConfirmed": false, "UserSub": "sub-1", "CodeDeliveryDetails": {"DeliveryMedium": "EMAIL", "Destination": "a***@e***"}}"#),
            .answer(200, #"{"Session": "c-1"}"#), .answer(200, Self.tokens),
        ])
        let responder = Responder()
        let signIn = try await CognitoAPITests.authenticator(sender).signUpAndSignIn(
            username: "newbie", attributes: ["email": "newbie@example.com"], responder: responder)
        #expect(signIn.tokens.accessToken == "unit-access")
        #expect(responder.codeAsked.withLock { $0.map { "\($0.0.rawValue) \($0.1 ?? "")" } } == "EMAIL_OTP a***@e***")
        let targets = sender.sent.map { $0.request.headerFields[.init("X-Amz-Target")!] ?? "" }
        #expect(targets == ["SignUp", "ConfirmSignUp", "InitiateAuth"].map { "AWSCognitoIdentityProviderService." + $0 })
        #expect(try Self.body(sender, 0) == .object([
            "ClientId": .string("unitclient"), "Username": .string("newbie"),
            "UserAttributes": .array([.object(["Name": .string("email"), "Value": .string("newbie@example.com")])]),
        ]))
        #expect(try Self.body(sender, 1).objectValue?["ConfirmationCode"] == .string("123456"))
        let start = try Self.body(sender, 2).objectValue
        #expect(start?["Session"] == .string("c-1") && start?["AuthParameters"] == .object(["USERNAME": .string("newbie")]))
    }
}

import MultiAuthCore
import MultiAuthCrypto

/// One challenge of a sign-in and its answer, by Cognito's challenge names: PASSWORD_VERIFIER
/// (offering a remembered device), NEW_PASSWORD_REQUIRED, the code challenges
/// (SOFTWARE_TOKEN_MFA, SMS_MFA, EMAIL_OTP, SMS_OTP), SELECT_MFA_TYPE, MFA_SETUP (TOTP:
/// AssociateSoftwareToken, VerifySoftwareToken, then the challenge), CUSTOM_CHALLENGE,
/// SELECT_CHALLENGE, WEB_AUTHN (a passkey), and DEVICE_SRP_AUTH with its DEVICE_PASSWORD_VERIFIER (the remembered
/// device's own SRP proof). Every answer goes with the session of the challenge it answers,
/// and is zeroed after.
struct CognitoChallengeRound {
    let authenticator: CognitoUserPoolAuthenticator
    let response: CognitoIdentityProviderAPI.AuthResponse
    /// The pool's name for the user.
    let username: String

    private var api: CognitoIdentityProviderAPI { authenticator.api }

    func answer(
        _ name: String, responder: any CognitoChallengeResponder, context: inout CognitoSignInContext
    ) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        if let kind = CognitoMFAKind(rawValue: name) {
            var code = try await responder.code(for: kind, destination: response.parameter("CODE_DELIVERY_DESTINATION"))
            defer { SecureMemory.zero(&code) }
            return try await respond(name, [kind.codeKey: String(decoding: code, as: UTF8.self)])
        }
        switch name {
        case "PASSWORD_VERIFIER":
            return try await provePassword(context: &context)
        case "DEVICE_SRP_AUTH":
            return try await proveDevice(context.device)
        case "NEW_PASSWORD_REQUIRED":
            var password = try await responder.newPassword(for: username)
            defer { SecureMemory.zero(&password) }
            return try await respond(name, ["NEW_PASSWORD": String(decoding: password, as: UTF8.self)])
        case "SELECT_MFA_TYPE":
            let options = response.list("MFAS_CAN_CHOOSE").compactMap(CognitoMFAKind.init(rawValue:))
            guard !options.isEmpty else { throw .malformedResponse(provider: "Cognito", problem: "SELECT_MFA_TYPE offers no MFA this client knows") }
            return try await respond(name, ["ANSWER": try await responder.chooseMFA(from: options).rawValue])
        case "SELECT_CHALLENGE":
            let options = (response.AvailableChallenges ?? []).compactMap(CognitoFirstFactor.init(rawValue:))
            guard !options.isEmpty else { throw .malformedResponse(provider: "Cognito", problem: "SELECT_CHALLENGE offers no first factor this client knows") }
            let choice: CognitoFirstFactor
            if let preferred = context.preferred, options.contains(preferred) { choice = preferred } else { choice = try await responder.chooseFirstFactor(from: options) }
            var answers = try context.firstFactorProof(choice)
            answers["ANSWER"] = choice.rawValue
            return try await respond(name, answers)
        case "CUSTOM_CHALLENGE":
            var answer = try await responder.answer(CognitoCustomChallenge(parameters: response.stringParameters))
            defer { SecureMemory.zero(&answer) }
            return try await respond(name, ["ANSWER": String(decoding: answer, as: UTF8.self)])
        case "MFA_SETUP":
            return try await setUpTOTP(responder: responder)
        case "WEB_AUTHN":
            guard let text = response.parameter("CREDENTIAL_REQUEST_OPTIONS"), let options = try? JSONValue.decode(text), options.objectValue != nil else {
                throw .malformedResponse(provider: "Cognito", problem: "WEB_AUTHN without CREDENTIAL_REQUEST_OPTIONS (a JSON object in a string)")
            }
            let credential = try await responder.passkeyAssertion(for: options)
            return try await respond(name, ["CREDENTIAL": credential.description])
        default:
            throw .unsupportedChallenge(name)
        }
    }

    /// RespondToAuthChallenge with USERNAME, SECRET_HASH and `answers`, in this challenge's session.
    private func respond(_ name: String, _ answers: [String: String], session: String? = nil) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        var all = answers
        all["USERNAME"] = username
        return try await api.respond(challenge: name, responses: authenticator.withSecretHash(all, username: username), session: session ?? response.Session)
    }

    /// The SRP password proof; a device remembered for USER_ID_FOR_SRP is offered with it.
    private func provePassword(context: inout CognitoSignInContext) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        guard let srp = context.srp else { throw .malformedResponse(provider: "Cognito", problem: "PASSWORD_VERIFIER without an SRP start") }
        guard let b = response.parameter("SRP_B"), let salt = response.parameter("SALT"), let block = response.parameter("SECRET_BLOCK"),
            let userId = response.parameter("USER_ID_FOR_SRP")
        else { throw .malformedResponse(provider: "Cognito", problem: "PASSWORD_VERIFIER lacks SRP_B, SALT, SECRET_BLOCK or USER_ID_FOR_SRP") }
        if let devices = context.devices { context.device = try await devices.device(for: userId) }
        let timestamp = CognitoSRP.timestamp(unixTime: authenticator.now())
        let signature = try srp.claimSignature(
            challenge: .init(serverB: b, salt: salt, secretBlock: block, userIdForSRP: userId), password: context.password,
            poolName: authenticator.configuration.poolName, timestamp: timestamp)
        var answers = ["TIMESTAMP": timestamp, "PASSWORD_CLAIM_SECRET_BLOCK": block, "PASSWORD_CLAIM_SIGNATURE": signature]
        if let device = context.device { answers["DEVICE_KEY"] = device.deviceKey }
        return try await respond("PASSWORD_VERIFIER", answers)
    }

    /// DEVICE_SRP_AUTH with a fresh A, then DEVICE_PASSWORD_VERIFIER signed with the device
    /// password's SRP key.
    private func proveDevice(_ device: CognitoRememberedDevice?) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        guard let device else { throw .unsupportedChallenge("DEVICE_SRP_AUTH (no device is remembered for \(username))") }
        let srp = try CognitoSRP()
        let challenge = try await respond("DEVICE_SRP_AUTH", ["DEVICE_KEY": device.deviceKey, "SRP_A": srp.largeA.hex])
        guard challenge.ChallengeName == "DEVICE_PASSWORD_VERIFIER", let b = challenge.parameter("SRP_B"), let salt = challenge.parameter("SALT"),
            let block = challenge.parameter("SECRET_BLOCK")
        else {
            throw .malformedResponse(provider: "Cognito", problem: "DEVICE_SRP_AUTH was not answered with a DEVICE_PASSWORD_VERIFIER challenge")
        }
        let user = challenge.parameter("USERNAME") ?? username
        let timestamp = CognitoSRP.timestamp(unixTime: authenticator.now())
        let signature = try srp.deviceClaimSignature(
            challenge: .init(serverB: b, salt: salt, secretBlock: block, userIdForSRP: user), device: device, timestamp: timestamp)
        let next = CognitoChallengeRound(authenticator: authenticator, response: challenge, username: user)
        return try await next.respond("DEVICE_PASSWORD_VERIFIER", [
            "DEVICE_KEY": device.deviceKey, "TIMESTAMP": timestamp, "PASSWORD_CLAIM_SECRET_BLOCK": block, "PASSWORD_CLAIM_SIGNATURE": signature,
        ])
    }

    private func setUpTOTP(responder: any CognitoChallengeResponder) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        let offered = response.list("MFAS_CAN_SETUP")
        guard offered.isEmpty || offered.contains(CognitoMFAKind.totp.rawValue) else {
            throw .unsupportedChallenge("MFA_SETUP for \(offered.joined(separator: ", ")) (only SOFTWARE_TOKEN_MFA can be set up here)")
        }
        let association = try await api.associateSoftwareToken(session: response.Session)
        guard let secret = association.SecretCode else {
            throw .malformedResponse(provider: "Cognito", problem: "AssociateSoftwareToken gave no SecretCode")
        }
        let setup = CognitoTOTPSetup(secret: secret, username: username, issuer: authenticator.configuration.userPoolId)
        var code = try await responder.confirmTOTPSetup(setup)
        defer { SecureMemory.zero(&code) }
        let verified = try await api.verifySoftwareToken(
            session: association.Session ?? response.Session, code: String(decoding: code, as: UTF8.self), friendlyName: "multiauth")
        guard verified.Status == nil || verified.Status == "SUCCESS" else {
            throw .service(provider: "Cognito", code: "VerifySoftwareToken", message: "status \(verified.Status ?? "")")
        }
        return try await respond("MFA_SETUP", [:], session: verified.Session ?? association.Session ?? response.Session)
    }
}

import MultiAuthCrypto

/// One challenge of a sign-in and its answer, by Cognito's challenge names:
/// NEW_PASSWORD_REQUIRED, SOFTWARE_TOKEN_MFA, SMS_MFA, EMAIL_OTP, SELECT_MFA_TYPE and
/// MFA_SETUP (TOTP: AssociateSoftwareToken, VerifySoftwareToken, then the challenge), and
/// DEVICE_SRP_AUTH with its DEVICE_PASSWORD_VERIFIER (the remembered device's own SRP proof).
/// Every answer goes with the session of the challenge it answers, and is zeroed after.
struct CognitoChallengeRound {
    let authenticator: CognitoUserPoolAuthenticator
    let response: CognitoIdentityProviderAPI.AuthResponse
    let username: String
    /// The device remembered for this user, offered at the password step.
    let device: CognitoRememberedDevice?

    private var api: CognitoIdentityProviderAPI { authenticator.api }

    func answer(_ name: String, responder: any CognitoChallengeResponder) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        switch name {
        case "NEW_PASSWORD_REQUIRED":
            var password = try await responder.newPassword(for: username)
            defer { SecureMemory.zero(&password) }
            return try await respond(name, ["NEW_PASSWORD": String(decoding: password, as: UTF8.self)])
        case let name where CognitoMFAKind(rawValue: name) != nil:
            let kind = CognitoMFAKind(rawValue: name)!
            var code = try await responder.code(for: kind, destination: response.parameter("CODE_DELIVERY_DESTINATION"))
            defer { SecureMemory.zero(&code) }
            return try await respond(name, [kind.codeKey: String(decoding: code, as: UTF8.self)])
        case "SELECT_MFA_TYPE":
            let options = response.list("MFAS_CAN_CHOOSE").compactMap(CognitoMFAKind.init(rawValue:))
            guard !options.isEmpty else { throw .malformedResponse(provider: "Cognito", problem: "SELECT_MFA_TYPE offers no MFA this client knows") }
            let choice = try await responder.chooseMFA(from: options)
            return try await respond(name, ["ANSWER": choice.rawValue])
        case "MFA_SETUP":
            return try await setUpTOTP(responder: responder)
        case "DEVICE_SRP_AUTH":
            return try await proveDevice()
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

    /// DEVICE_SRP_AUTH with a fresh A, then DEVICE_PASSWORD_VERIFIER signed with the device
    /// password's SRP key.
    private func proveDevice() async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
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
        let next = CognitoChallengeRound(authenticator: authenticator, response: challenge, username: user, device: device)
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

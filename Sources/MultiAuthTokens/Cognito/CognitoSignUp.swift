import MultiAuthCore
import MultiAuthCrypto

extension CognitoUserPoolAuthenticator {
    /// Signs a new user up without a password and signs them in: SignUp with `attributes`
    /// (an `email` or `phone_number` the pool sends the code to), the confirmation code asked
    /// of `responder` as an email or SMS code, ConfirmSignUp, then USER_AUTH with the session
    /// ConfirmSignUp gives, so no first factor is asked again.
    /// - Parameters:
    ///   - username: the new user's name.
    ///   - attributes: the user's attributes (`email`, `phone_number`, ...).
    ///   - responder: gives the confirmation code and answers any later challenge.
    public func signUpAndSignIn(
        username: String, attributes: [String: String], responder: any CognitoChallengeResponder
    ) async throws(TokenError) -> CognitoSignIn {
        let hash = configuration.clientSecret.map { CognitoSecretHash.compute(username: username, clientId: configuration.clientId, clientSecret: $0) }
        let signedUp = try await api.signUp(username: username, attributes: attributes, password: nil, secretHash: hash)
        let delivery = signedUp.CodeDeliveryDetails
        var session = signedUp.Session
        if signedUp.UserConfirmed != true {
            var code = try await responder.code(for: delivery?.DeliveryMedium == "SMS" ? .smsOTP : .email, destination: delivery?.Destination)
            defer { SecureMemory.zero(&code) }
            session = try await api.confirmSignUp(username: username, code: String(decoding: code, as: UTF8.self), secretHash: hash).Session
        }
        guard let session else {
            throw .malformedResponse(provider: "Cognito", problem: "ConfirmSignUp gave no Session to sign the new user in with")
        }
        var context = CognitoSignInContext(password: [], preferred: nil, devices: nil)
        let response = try await api.initiateAuth(flow: "USER_AUTH", parameters: withSecretHash(["USERNAME": username], username: username), session: session)
        return try await answerChallenges(from: response, username: username, responder: responder, context: &context)
    }
}

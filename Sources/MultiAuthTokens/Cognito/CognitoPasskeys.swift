import MultiAuthCore
public import MultiAuthWebAuthn

extension CognitoUserPoolAuthenticator {
    /// Registers a passkey for the signed-in user (StartWebAuthnRegistration, the
    /// authenticator through `client`, CompleteWebAuthnRegistration). Later sign-ins may use
    /// it with USER_AUTH and ``CognitoFirstFactor/webAuthn``.
    /// - Parameters:
    ///   - tokens: the user's tokens (the access token authorizes the registration).
    ///   - client: the WebAuthn client, with the origin the pool's relying party accepts.
    public func registerPasskey(tokens: AuthTokens, client: WebAuthnClient) async throws(TokenError) {
        let started = try await api.startWebAuthnRegistration(accessToken: tokens.accessToken)
        guard let options = started.CredentialCreationOptions, options.objectValue != nil else {
            throw .malformedResponse(provider: "Cognito", problem: "StartWebAuthnRegistration gave no CredentialCreationOptions object")
        }
        let credential: JSONValue
        do throws(WebAuthnError) { credential = try await client.register(options) } catch { throw .passkey(error) }
        try await api.completeWebAuthnRegistration(accessToken: tokens.accessToken, credential: credential)
    }
}

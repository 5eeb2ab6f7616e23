import MultiAuthHTTP

extension OpenIDConnectClient {
    /// The authorization-code flow with PKCE S256 and a loopback redirect (RFC 8252):
    /// `present` receives the URL to open (print it; open a browser if there is one), then
    /// the redirect is awaited for up to `timeout`, its `state` checked, and the code
    /// exchanged with the verifier. The ID token must carry this login's nonce.
    public func authorizationCode(
        redirect: LoopbackRedirectServer, timeout: Duration = .seconds(300), present: @Sendable (String) async -> Void
    ) async throws(TokenError) -> AuthTokens {
        guard let endpoint = metadata.authorizationEndpoint else {
            throw .invalidParameter(provider: configuration.issuer, message: "the provider has no authorization endpoint")
        }
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw .invalidParameter(provider: configuration.issuer, message: "the provider does not support PKCE S256")
        }
        let pkce = try PKCE()
        let query = FormURLEncoding.encode([
            ("response_type", "code"), ("client_id", configuration.clientId), ("redirect_uri", redirect.redirectURI),
            ("scope", configuration.scope), ("state", pkce.state), ("nonce", pkce.nonce),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ])
        await present(endpoint + (endpoint.contains("?") ? "&" : "?") + String(decoding: query, as: UTF8.self))
        let parameters = try await redirect.waitForRedirect(timeout: timeout)
        guard parameters["state"] == pkce.state else { throw .stateMismatch }
        if let error = parameters["error"] {
            throw mapped(.init(code: error, message: parameters["error_description"] ?? "the provider refused the authorization"))
        }
        guard let code = parameters["code"] else {
            throw .malformedResponse(provider: configuration.issuer, problem: "the redirect carries neither a code nor an error")
        }
        return try await tokenRequest(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect.redirectURI), ("code_verifier", pkce.verifier)],
            nonce: pkce.nonce)
    }
}

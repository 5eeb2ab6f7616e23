public import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthHTTP

/// Signs in to a Cognito user pool (USER_SRP_AUTH, USER_PASSWORD_AUTH, CUSTOM_AUTH or
/// USER_AUTH), answers its challenges through a ``CognitoChallengeResponder`` (new password,
/// TOTP/SMS/email MFA, the choice between them, TOTP set-up, custom challenges, the choice of
/// first factor), proves remembered devices, and refreshes with REFRESH_TOKEN_AUTH.
///
/// ```swift
/// let cognito = CognitoUserPoolAuthenticator(configuration: .init(userPoolId: pool, clientId: client), http: CurlHTTPClient())
/// let tokens = try await cognito.signIn(username: "alice", password: Array(password.utf8))
/// ```
public struct CognitoUserPoolAuthenticator: TokenRefresher {
    /// How the sign-in starts.
    public enum Flow: String, Sendable, Codable, CaseIterable {
        /// USER_SRP_AUTH: the password never leaves the client.
        case srp
        /// USER_PASSWORD_AUTH: the password is sent over TLS.
        case password
        /// CUSTOM_AUTH: the pool's own challenges (CUSTOM_CHALLENGE), as many rounds as it asks.
        case custom
        /// USER_AUTH: choice-based sign-in (password, SRP, or an email or SMS code first).
        case userAuth = "user-auth"
    }

    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    let api: CognitoIdentityProviderAPI
    let clock: TimeSource

    /// - Parameters:
    ///   - configuration: the pool and its client.
    ///   - http: the transport to Cognito.
    ///   - clock: the wall clock (for token expiry and the SRP timestamp).
    public init(configuration: CognitoUserPoolConfiguration, http: any HTTPSender, clock: TimeSource = .system) {
        self.configuration = configuration
        api = CognitoIdentityProviderAPI(configuration: configuration, http: http)
        self.clock = clock
    }

    /// Whole seconds since 1970 on ``clock``.
    func now() -> Int64 { Int64(clock.now()) }

    /// Signs `username` in, answering NEW_PASSWORD_REQUIRED only.
    /// - Parameters:
    ///   - username: the user name or an alias (email, phone) the pool accepts.
    ///   - flow: SRP (the default) or the plain-password flow.
    ///   - password: zeroed by the caller after the call; copies made here are zeroed.
    ///   - newPassword: asked for when the pool answers NEW_PASSWORD_REQUIRED; `nil` means
    ///     ``TokenError/newPasswordRequired(username:)``.
    public func signIn(
        username: String, password: [UInt8], flow: Flow = .srp,
        newPassword: (@Sendable () async throws(TokenError) -> [UInt8])? = nil
    ) async throws(TokenError) -> AuthTokens {
        try await signIn(username: username, password: password, flow: flow, responder: NewPasswordOnlyResponder(newPassword: newPassword)).tokens
    }

    /// Signs `username` in, answering every challenge through `responder`: a new password,
    /// TOTP, SMS and email codes, the choice between them, TOTP set-up, custom challenges and
    /// USER_AUTH's choice of first factor (`preferred`, else the responder's). With `devices`,
    /// a device remembered for the user is offered (DEVICE_KEY) and proven (DEVICE_SRP_AUTH,
    /// DEVICE_PASSWORD_VERIFIER), so the pool can skip MFA.
    /// - Parameters:
    ///   - username: the user name or an alias (email, phone) the pool accepts.
    ///   - password: zeroed by the caller after the call; copies made here are zeroed.
    ///   - flow: SRP (the default) or the plain-password flow.
    ///   - preferred: the first factor to ask for under USER_AUTH.
    ///   - responder: answers the challenges.
    ///   - devices: where remembered devices are kept, if anywhere.
    public func signIn(
        username: String, password: [UInt8], flow: Flow = .srp, preferred: CognitoFirstFactor? = nil,
        responder: any CognitoChallengeResponder, devices: (any CognitoDeviceStore)? = nil
    ) async throws(TokenError) -> CognitoSignIn {
        var context = CognitoSignInContext(password: password, preferred: preferred, devices: devices)
        defer { SecureMemory.zero(&context.password) }
        let response = try await start(username: username, flow: flow, context: &context)
        return try await answerChallenges(from: response, username: username, responder: responder, context: &context)
    }

    /// Answers challenges from `first` until the pool gives tokens.
    func answerChallenges(
        from first: CognitoIdentityProviderAPI.AuthResponse, username: String, responder: any CognitoChallengeResponder,
        context: inout CognitoSignInContext
    ) async throws(TokenError) -> CognitoSignIn {
        var response = first
        var user = username
        for _ in 0..<Self.maximumChallenges {
            // The pool's name for the user, which differs from what was typed for an alias.
            user = response.parameter("USERNAME") ?? response.parameter("USER_ID_FOR_SRP") ?? user
            guard let name = response.ChallengeName else { return try signInResult(response, challengeUser: user) }
            response = try await CognitoChallengeRound(authenticator: self, response: response, username: user)
                .answer(name, responder: responder, context: &context)
        }
        throw .malformedResponse(provider: "Cognito", problem: "more than \(Self.maximumChallenges) challenges in one sign-in")
    }

    /// A sign-in that keeps asking is cut off here.
    static let maximumChallenges = 10

    /// InitiateAuth for `flow`.
    private func start(username: String, flow: Flow, context: inout CognitoSignInContext) async throws(TokenError) -> CognitoIdentityProviderAPI.AuthResponse {
        var parameters = ["USERNAME": username]
        let name: String
        switch flow {
        case .password:
            name = "USER_PASSWORD_AUTH"
            parameters["PASSWORD"] = String(decoding: context.password, as: UTF8.self)
        case .srp:
            name = "USER_SRP_AUTH"
            parameters["SRP_A"] = try context.startSRP()
        case .custom:
            name = "CUSTOM_AUTH"
        case .userAuth:
            name = "USER_AUTH"
            if let preferred = context.preferred {
                parameters["PREFERRED_CHALLENGE"] = preferred.rawValue
                parameters.merge(try context.firstFactorProof(preferred)) { $1 }
            }
        }
        return try await api.initiateAuth(flow: name, parameters: withSecretHash(parameters, username: username))
    }

    /// The tokens, the pool's user id (the access token's `username`) and any device offered.
    private func signInResult(_ response: CognitoIdentityProviderAPI.AuthResponse, challengeUser: String) throws(TokenError) -> CognitoSignIn {
        let tokens = try tokens(from: response)
        let userId = (try? tokens.claims(of: .access))?.members["username"]?.stringValue ?? challengeUser
        let offered = response.AuthenticationResult?.NewDeviceMetadata.map { CognitoNewDevice(deviceKey: $0.DeviceKey, groupKey: $0.DeviceGroupKey) }
        return CognitoSignIn(tokens: tokens, userId: userId, newDevice: offered)
    }

    public func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens {
        guard let refreshToken = tokens.refreshToken else { throw .loginRequired(name: "", reason: "no refresh token") }
        // SECRET_HASH on refresh uses the user's internal name (the access token's `username`).
        let username = (try? tokens.claims(of: .access))?.members["username"]?.stringValue ?? ""
        var parameters = ["REFRESH_TOKEN": refreshToken]
        // Once a device is tracked, Cognito refuses its refresh token without the device key.
        if let deviceKey = (try? tokens.claims(of: .access))?.members["device_key"]?.stringValue { parameters["DEVICE_KEY"] = deviceKey }
        if let secret = configuration.clientSecret {
            parameters["SECRET_HASH"] = CognitoSecretHash.compute(username: username, clientId: configuration.clientId, clientSecret: secret)
        }
        return try self.tokens(from: try await api.initiateAuth(flow: "REFRESH_TOKEN_AUTH", parameters: parameters))
    }

    /// Revokes the refresh token (and the tokens issued from it).
    public func revoke(_ tokens: AuthTokens) async throws(TokenError) {
        guard let refreshToken = tokens.refreshToken else { return }
        try await api.revoke(refreshToken: refreshToken)
    }

    func withSecretHash(_ parameters: [String: String], username: String) -> [String: String] {
        guard let secret = configuration.clientSecret else { return parameters }
        var result = parameters
        result["SECRET_HASH"] = CognitoSecretHash.compute(username: username, clientId: configuration.clientId, clientSecret: secret)
        return result
    }

    func tokens(from response: CognitoIdentityProviderAPI.AuthResponse) throws(TokenError) -> AuthTokens {
        guard let result = response.AuthenticationResult else {
            throw response.ChallengeName.map { TokenError.unsupportedChallenge($0) }
                ?? .malformedResponse(provider: "Cognito", problem: "neither tokens nor a challenge")
        }
        return AuthTokens(
            idToken: result.IdToken, accessToken: result.AccessToken, refreshToken: result.RefreshToken,
            expiresAt: now() + (result.ExpiresIn ?? 3600))
    }
}

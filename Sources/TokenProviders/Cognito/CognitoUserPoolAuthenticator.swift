import HTTPTransport
import MultiAuthCrypto

/// Signs in to a Cognito user pool (USER_SRP_AUTH or USER_PASSWORD_AUTH), answers its
/// challenges through a ``CognitoChallengeResponder`` (new password, TOTP/SMS/email MFA, the
/// choice between them, TOTP set-up), and refreshes with REFRESH_TOKEN_AUTH.
///
/// ```swift
/// let cognito = CognitoUserPoolAuthenticator(configuration: .init(userPoolId: pool, clientId: client), http: CurlHTTPClient())
/// let tokens = try await cognito.signIn(username: "alice", password: Array(password.utf8))
/// ```
public struct CognitoUserPoolAuthenticator: TokenRefresher {
    /// How the password is proven.
    public enum Flow: String, Sendable, Codable, CaseIterable {
        /// USER_SRP_AUTH: the password never leaves the client.
        case srp
        /// USER_PASSWORD_AUTH: the password is sent over TLS.
        case password
    }

    /// The pool and client.
    public let configuration: CognitoUserPoolConfiguration
    let api: CognitoIdentityProviderAPI
    let now: @Sendable () -> Int64

    /// - Parameter now: the clock, seconds since 1970 (for token expiry and the SRP timestamp).
    public init(configuration: CognitoUserPoolConfiguration, http: any HTTPSender, now: @escaping @Sendable () -> Int64 = unixNow) {
        self.configuration = configuration
        api = CognitoIdentityProviderAPI(configuration: configuration, http: http)
        self.now = now
    }

    /// Signs `username` in, answering NEW_PASSWORD_REQUIRED only.
    /// - Parameters:
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
    /// TOTP, SMS and email codes, the choice between them, and TOTP set-up. With `devices`,
    /// a device remembered for the user is offered (DEVICE_KEY) and proven (DEVICE_SRP_AUTH,
    /// DEVICE_PASSWORD_VERIFIER), so the pool can skip MFA.
    /// - Parameter password: zeroed by the caller after the call; copies made here are zeroed.
    public func signIn(
        username: String, password: [UInt8], flow: Flow = .srp, responder: any CognitoChallengeResponder,
        devices: (any CognitoDeviceStore)? = nil
    ) async throws(TokenError) -> CognitoSignIn {
        var (response, challengeUser, device): (CognitoIdentityProviderAPI.AuthResponse, String, CognitoRememberedDevice?) = try await start(username: username, password: password, flow: flow, devices: devices)
        for _ in 0..<Self.maximumChallenges {
            guard let name = response.ChallengeName else { return try signInResult(response, challengeUser: challengeUser) }
            response = try await CognitoChallengeRound(authenticator: self, response: response, username: challengeUser, device: device)
                .answer(name, responder: responder)
            challengeUser = response.parameter("USERNAME") ?? challengeUser
        }
        throw .malformedResponse(provider: "Cognito", problem: "more than \(Self.maximumChallenges) challenges in one sign-in")
    }

    /// A sign-in that keeps asking is cut off here.
    static let maximumChallenges = 10

    /// InitiateAuth, and the SRP password proof (offering the device remembered for the user
    /// the challenge names); returns the next answer, the pool's name for the user and that
    /// device.
    private func start(
        username: String, password: [UInt8], flow: Flow, devices: (any CognitoDeviceStore)?
    ) async throws(TokenError) -> (CognitoIdentityProviderAPI.AuthResponse, String, CognitoRememberedDevice?) {
        switch flow {
        case .password:
            var text = String(decoding: password, as: UTF8.self)
            defer { text = "" }
            let response = try await api.initiateAuth(
                flow: "USER_PASSWORD_AUTH", parameters: withSecretHash(["USERNAME": username, "PASSWORD": text], username: username))
            return (response, response.parameter("USER_ID_FOR_SRP") ?? username, nil)
        case .srp:
            let srp = try CognitoSRP()
            let response = try await api.initiateAuth(
                flow: "USER_SRP_AUTH", parameters: withSecretHash(["USERNAME": username, "SRP_A": srp.largeA.hex], username: username))
            guard response.ChallengeName == "PASSWORD_VERIFIER" else { return (response, username, nil) }
            var device: CognitoRememberedDevice?
            if let devices, let userId = response.parameter("USER_ID_FOR_SRP") { device = try await devices.device(for: userId) }
            let (answer, user) = try await answerPasswordVerifier(response, srp: srp, password: password, username: username, device: device)
            return (answer, user, device)
        }
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

    private func answerPasswordVerifier(
        _ response: CognitoIdentityProviderAPI.AuthResponse, srp: CognitoSRP, password: [UInt8], username: String,
        device: CognitoRememberedDevice?
    ) async throws(TokenError) -> (CognitoIdentityProviderAPI.AuthResponse, String) {
        guard let b = response.parameter("SRP_B"), let salt = response.parameter("SALT"), let block = response.parameter("SECRET_BLOCK"),
            let userId = response.parameter("USER_ID_FOR_SRP")
        else { throw .malformedResponse(provider: "Cognito", problem: "PASSWORD_VERIFIER lacks SRP_B, SALT, SECRET_BLOCK or USER_ID_FOR_SRP") }
        // USERNAME in the challenge is the pool's name for the user, which differs from what
        // was typed when the user signed in with an alias.
        let challengeUser = response.parameter("USERNAME") ?? userId
        let timestamp = CognitoSRP.timestamp(unixTime: now())
        let signature = try srp.claimSignature(
            challenge: .init(serverB: b, salt: salt, secretBlock: block, userIdForSRP: userId), password: password,
            poolName: configuration.poolName, timestamp: timestamp)
        var answers = withSecretHash(
            ["TIMESTAMP": timestamp, "USERNAME": challengeUser, "PASSWORD_CLAIM_SECRET_BLOCK": block, "PASSWORD_CLAIM_SIGNATURE": signature],
            username: challengeUser)
        if let device { answers["DEVICE_KEY"] = device.deviceKey }
        return (try await api.respond(challenge: "PASSWORD_VERIFIER", responses: answers, session: response.Session), challengeUser)
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

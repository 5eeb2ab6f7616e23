public import MultiAuthCore
public import MultiAuthHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The access token of a cached SSO login, refreshed as botocore's `SSOTokenProvider` does:
/// with fewer than 15 minutes left and a client registration still valid, CreateToken
/// (refresh_token grant) through SSO OIDC, then the rotated tokens are written back to the
/// same cache file, atomically. Refreshes are serialized between processes by a lock file
/// beside the cache, and the cache is read again under it, so a refresh another process just
/// made is used instead of spending the rotated refresh token twice. Nothing is written unless
/// the refresh succeeded; a failed refresh keeps a token that is still valid.
public struct SSOTokenProvider: Sendable {
    /// The refresh window, in seconds.
    public static let refreshWindow = 15.0 * 60
    let configuration: SSOSessionConfiguration
    let cache: SSOTokenCache
    let oidc: SSOOIDCClient
    let clock: TimeSource
    /// What renews the login, for messages (`multiauth login sso --profile dev`).
    let loginCommand: String
    /// Signs a person in again when the login cannot be refreshed; nil: that is an error.
    let signIn: SSOSignIn?

    /// A provider for `configuration`'s login; `loginCommand` is named when the login must be
    /// renewed by hand. `profile` (if any) may name endpoints for SSO OIDC.
    public init(
        configuration: SSOSessionConfiguration, loginCommand: String, environment: [String: String], profile: String? = nil,
        http: any HTTPSender, clock: TimeSource = .system, signIn: SSOSignIn? = nil
    ) throws(CredentialsError) {
        let endpoints = try SSOEndpoints(region: configuration.region, environment: environment, profile: profile, http: http)
        self.init(
            configuration: configuration, loginCommand: loginCommand, cache: SSOTokenCache(environment: environment),
            oidc: SSOOIDCClient(client: endpoints.oidc), clock: clock, signIn: signIn)
    }

    init(
        configuration: SSOSessionConfiguration, loginCommand: String, cache: SSOTokenCache, oidc: SSOOIDCClient, clock: TimeSource,
        signIn: SSOSignIn? = nil
    ) {
        self.configuration = configuration
        self.loginCommand = loginCommand
        self.cache = cache
        self.oidc = oidc
        self.clock = clock
        self.signIn = signIn
    }

    /// A valid access token; with a ``SSOSignIn``, a person signs in again when the login
    /// is missing or cannot be refreshed.
    /// - Throws: ``CredentialsError/ssoLoginNeeded(what:command:)`` when there is no login,
    ///   or it expired and cannot be refreshed (or signing in again failed);
    ///   ``CredentialsError/ssoCache(path:problem:)`` for an unusable cache file.
    public func accessToken() async throws(CredentialsError) -> String {
        do throws(CredentialsError) { return try await cachedToken() } catch {
            guard let signIn, case .ssoLoginNeeded = error.kind else { throw error }
            return try await signedInAgain(with: signIn)
        }
    }

    /// The cached login's access token, refreshed when it can be.
    private func cachedToken() async throws(CredentialsError) -> String {
        guard let token = try cache.read(configuration) else {
            throw .ssoLoginNeeded(what: "no SSO login for \(configuration.startURL) in \(cache.path(for: configuration))", command: loginCommand)
        }
        if remaining(token) >= Self.refreshWindow { return token.accessToken }
        guard let expiry = token.registration?.expiresAt, expiry.timeIntervalSince1970 > clock.now() else {
            return try stillValid(token, reason: "expired and the client registration cannot refresh it")
        }
        do throws(CredentialsError) {
            return try await refreshed()
        } catch {
            if case .ssoCache = error.kind { throw error }
            return try stillValid(token, reason: "expired and the refresh failed (\(error))")
        }
    }

    func remaining(_ token: SSOToken) -> Double {
        (token.expiresAt?.timeIntervalSince1970 ?? 0) - clock.now()
    }

    private func stillValid(_ token: SSOToken, reason: String) throws(CredentialsError) -> String {
        guard remaining(token) > 0 else {
            throw .ssoLoginNeeded(what: "the SSO login for \(configuration.startURL) \(reason)", command: loginCommand)
        }
        return token.accessToken
    }

    /// Under the lock: read again, and refresh only if nobody did meanwhile.
    private func refreshed() async throws(CredentialsError) -> String {
        try await LockedRefresh.run { () async throws(CredentialsError) -> HeldFileLock in
            do throws(FileLockError) { return try await FileLock.acquire(path: cache.lockPath(for: configuration), timeout: .seconds(30)) } catch {
                throw .ssoCache(path: cache.lockPath(for: configuration), problem: "cannot be locked: \(error)")
            }
        } read: { _ throws(CredentialsError) in
            guard let token = try cache.read(configuration), token.registration != nil else {
                throw .ssoLoginNeeded(what: "the SSO login for \(configuration.startURL) disappeared during a refresh", command: loginCommand)
            }
            return token
        } refreshedMeanwhile: { token in
            remaining(token) >= Self.refreshWindow
        } refresh: { token async throws(CredentialsError) in
            try await renewed(token)
        } write: { token, _ throws(CredentialsError) in
            try cache.write(token, for: configuration)
        }.accessToken
    }

    /// `token` with a new access token from its refresh token.
    private func renewed(_ stale: SSOToken) async throws(CredentialsError) -> SSOToken {
        var token = stale
        guard let registration = token.registration else {
            throw .ssoLoginNeeded(what: "the SSO login for \(configuration.startURL) has no client registration", command: loginCommand)
        }
        let now = clock.now()
        let fresh = try await oidc.createToken(
            clientId: registration.clientId, clientSecret: registration.clientSecret, grant: .refreshToken(registration.refreshToken))
        try checkWireSafe([("accessToken", fresh.accessToken)], source: SSOOIDCClient.service)
        token.fields["accessToken"] = .string(fresh.accessToken)
        token.fields["expiresAt"] = .string(SSOToken.timestamp(Date(timeIntervalSince1970: now + Double(fresh.expiresIn))))
        if let refreshToken = fresh.refreshToken { token.fields["refreshToken"] = .string(refreshToken) }
        token.fields["startUrl"] = .string(configuration.startURL)
        token.fields["region"] = .string(configuration.region)
        return token
    }
}

/// Credentials for an SSO profile (`sso_account_id`, `sso_role_name`): the login's access
/// token (``SSOTokenProvider``), then the portal's GetRoleCredentials.
public struct SSOCredentialsProvider: CredentialsProvider {
    let tokens: SSOTokenProvider
    let portal: SSOPortalClient
    let accountId: String
    let roleName: String

    /// A provider for `accountId`/`roleName` through `configuration`'s login; `profile` (if
    /// any) may name endpoints for SSO OIDC and the portal.
    public init(
        configuration: SSOSessionConfiguration, accountId: String, roleName: String, loginCommand: String,
        environment: [String: String], profile: String? = nil, http: any HTTPSender, clock: TimeSource = .system
    ) throws(CredentialsError) {
        let endpoints = try SSOEndpoints(region: configuration.region, environment: environment, profile: profile, http: http)
        self.init(
            configuration: configuration, accountId: accountId, roleName: roleName, loginCommand: loginCommand, environment: environment,
            endpoints: endpoints, http: http, clock: clock)
    }

    /// The same, with endpoints already resolved (the profile provider has the files loaded).
    init(
        configuration: SSOSessionConfiguration, accountId: String, roleName: String, loginCommand: String,
        environment: [String: String], endpoints: SSOEndpoints, http: any HTTPSender, clock: TimeSource = .system, signIn: SSOSignIn? = nil
    ) {
        tokens = SSOTokenProvider(
            configuration: configuration, loginCommand: loginCommand, cache: SSOTokenCache(environment: environment),
            oidc: SSOOIDCClient(client: endpoints.oidc), clock: clock, signIn: signIn)
        portal = SSOPortalClient(client: endpoints.portal)
        self.accountId = accountId
        self.roleName = roleName
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let token = try await tokens.accessToken()
        do throws(CredentialsError) {
            return try await portal.roleCredentials(accountId: accountId, roleName: roleName, accessToken: token)
        } catch {
            if case .serviceError(_, "UnauthorizedException", _) = error.kind {
                throw .ssoLoginNeeded(what: "the SSO portal no longer accepts the login for \(tokens.configuration.startURL)", command: tokens.loginCommand)
            }
            throw error
        }
    }
}

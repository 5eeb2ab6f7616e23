public import Logging
public import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthHTTP
public import MultiAuthStore
public import MultiAuthTokens

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One saved login: which provider it came from and its tokens. Kept encrypted in the
/// credential store under the provider's environment (pool, client, region, endpoint or
/// issuer, client), so tokens made for one backend are never used against another.
public struct LoginRecord: Sendable, Codable, Equatable {
    /// Where the tokens come from.
    public enum Provider: Sendable, Codable, Equatable {
        /// A Cognito user pool.
        case cognito(CognitoUserPoolConfiguration)
        /// An OpenID Connect provider.
        case oidc(OIDCConfiguration)
    }

    /// The provider.
    public var provider: Provider
    /// The flow that made the login (`srp`, `password`, `pkce`, `device`, `client-credentials`).
    public var flow: String
    /// The tokens.
    public var tokens: AuthTokens

    /// A record.
    public init(provider: Provider, flow: String, tokens: AuthTokens) {
        self.provider = provider
        self.flow = flow
        self.tokens = tokens
    }

    /// The store environment of the provider.
    public var environment: StoreEnvironment {
        switch provider {
        case .cognito(let configuration): configuration.environment
        case .oidc(let configuration): configuration.environment
        }
    }
}

/// Saves, loads and removes logins by name in a ``CredentialStore``, and turns a saved login
/// into a refreshing ``TokenProvider`` that writes refreshed tokens back.
public struct LoginStore: Sendable {
    /// The store service name under which logins live; the account is the login's name.
    public static let service = "multiauth.login"
    /// The store.
    public let store: CredentialStore

    /// Logins in `store`.
    public init(store: CredentialStore) { self.store = store }

    /// Saves `record` as `name`, replacing an earlier login of that name.
    public func save(_ record: LoginRecord, name: String) async throws(TokenError) {
        var bytes = try encode(record)
        defer { SecureMemory.zero(&bytes) }
        do {
            try await store.set(bytes, service: Self.service, account: name, label: "login (\(record.flow))", environment: record.environment)
        } catch { throw .storage(UnderlyingError(error)) }
    }

    /// The login saved as `name`. With `expecting`, it must have been made for that
    /// environment; without, the environment saved with it is used.
    public func load(name: String, expecting: StoreEnvironment? = nil) async throws(TokenError) -> LoginRecord {
        do {
            var bytes: [UInt8]
            if let expecting {
                bytes = try await store.get(service: Self.service, account: name, environment: expecting)
            } else {
                bytes = try await store.getSavedWithEnvironment(service: Self.service, account: name).secret
            }
            defer { SecureMemory.zero(&bytes) }
            return try decode(bytes, name: name)
        } catch let error as StoreError {
            if case .itemNotFound = error.kind { throw .loginRequired(name: name, reason: "no such login in \(store.path)") }
            throw .storage(UnderlyingError(error))
        } catch let error as TokenError {
            throw error
        } catch {
            throw .storage(UnderlyingError(error))
        }
    }

    /// Removes the login `name`.
    public func remove(name: String) async throws(TokenError) {
        do { try await store.delete(service: Self.service, account: name) } catch { throw .storage(UnderlyingError(error)) }
    }

    /// A provider that serves the saved tokens and refreshes them `refreshMargin`
    /// before expiry (one refresh in flight at a time). Each refresh runs under the store's
    /// lock (see LockedLoginRefresher): concurrent processes cause one refresh, and a
    /// rotated refresh token is saved before any other process can read the spent one.
    public func provider(
        for record: LoginRecord, name: String, http: any HTTPSender, refreshMargin: Duration = .seconds(120), clock: TimeSource = .system,
        logger: Logger = .disabled
    ) -> RefreshingTokenProvider {
        let refresher = LockedLoginRefresher(
            logins: self, name: name, record: record, refresher: record.refresher(http: http), clock: clock,
            logger: logger)
        return RefreshingTokenProvider(
            tokens: record.tokens, refresher: refresher, name: name, refreshMargin: refreshMargin, clock: clock, logger: logger)
    }

    func decode(_ bytes: [UInt8], name: String) throws(TokenError) -> LoginRecord {
        do { return try JSONDecoding.decode(LoginRecord.self, from: bytes, what: "login '\(name)' in \(store.path)") } catch {
            throw TokenError.storage(UnderlyingError(error))
        }
    }

    func encode(_ record: LoginRecord) throws(TokenError) -> [UInt8] {
        do { return Array(try JSONEncoder().encode(record)) } catch { throw .local("cannot encode the login") }
    }
}

extension LoginRecord {
    /// How this login's tokens are refreshed.
    func refresher(http: any HTTPSender) -> any TokenRefresher {
        switch provider {
        case .cognito(let configuration): CognitoUserPoolAuthenticator(configuration: configuration, http: http)
        case .oidc(let configuration): DiscoveringRefresher(configuration: configuration, http: http)
        }
    }
}

extension LoginRecord {
    /// Revokes the login's refresh token where the provider allows it: Cognito's
    /// RevokeToken, or the OIDC provider's RFC 7009 endpoint. Returns false when the provider
    /// offers no revocation (the tokens then stay valid until they expire).
    public func revoke(http: any HTTPSender) async throws(TokenError) -> Bool {
        switch provider {
        case .cognito(let configuration):
            try await CognitoUserPoolAuthenticator(configuration: configuration, http: http).revoke(tokens)
            return true
        case .oidc(let configuration):
            return try await OpenIDConnectClient.discover(configuration, http: http).revoke(tokens)
        }
    }
}

/// Refreshes an OIDC login, discovering the provider only when a refresh is needed, so a
/// valid saved token costs no network call.
struct DiscoveringRefresher: TokenRefresher {
    let configuration: OIDCConfiguration
    let http: any HTTPSender

    func refresh(_ tokens: AuthTokens) async throws(TokenError) -> AuthTokens {
        try await OpenIDConnectClient.discover(configuration, http: http).refresh(tokens)
    }
}

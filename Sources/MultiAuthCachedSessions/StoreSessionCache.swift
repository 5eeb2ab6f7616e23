public import Logging
public import MultiAuthCore
public import MultiAuthCredentials
import MultiAuthCrypto
public import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sessions kept encrypted in a ``CredentialStore``, one item per profile (service
/// `multiauth.session`, account the profile's name, environment the ``SessionKey``'s
/// settings), shared by every process that opens the store.
///
/// A session is handed out until `refreshMargin` seconds (at most half its life) before it
/// expires. A new one is obtained under the store's lock, after reading again: processes
/// that find the session stale at once obtain it once, and the others use that one.
///
/// The cache never stands between a caller and credentials: when the store cannot be read
/// or written (missing, wrong key, locked too long, corrupted), the session is obtained
/// without it and a warning says why. A session saved for other settings is replaced; nothing
/// else in the store is touched.
public struct StoreSessionCache: SessionCache {
    /// The store service sessions live under; the account is the profile's name.
    public static let service = "multiauth.session"
    /// How long a process waits for another's lock: as long as obtaining a session may take
    /// (an MFA code typed, STS's 30 s), or the store's own timeout if that is longer.
    static let obtainWait: Duration = .seconds(60)

    let store: CredentialStore
    let refreshMargin: Double
    let clock: TimeSource
    let logger: Logger
    let renewSAML: SAMLSessions.Renewal?

    /// Sessions in `store`, handed out until `refreshMargin` before expiry (15 min, the
    /// advisory window botocore refreshes in). `renewSAML` signs in again for a spent SAML
    /// session (``SAMLSessions``).
    public init(
        store: CredentialStore, refreshMargin: Duration = .seconds(15 * 60), clock: TimeSource = .system, logger: Logger = .disabled,
        renewSAML: SAMLSessions.Renewal? = nil
    ) {
        self.store = store
        self.refreshMargin = refreshMargin.inSeconds
        self.clock = clock
        self.logger = logger
        self.renewSAML = renewSAML
    }

    public func session(
        for key: SessionKey, obtain: () async throws(CredentialsError) -> ExpiringCredentials
    ) async throws(CredentialsError) -> ExpiringCredentials {
        let environment = StoreEnvironment(key.settings)
        switch await cached(key, environment: environment) {
        case .usable(let session): return session.credentials
        case .unavailable(let reason): return try await uncached(obtain, reason: reason)
        case .stale, .obtained: break
        }
        let lease: StoreLease
        do { lease = try await store.lease(timeout: max(store.lockTimeout, Self.obtainWait)) } catch {
            return try await uncached(obtain, reason: "\(error)")
        }
        let outcome = try await LockedRefresh.run { () async throws(CredentialsError) -> StoreLease in
            lease
        } read: { (lease: StoreLease) async throws(CredentialsError) -> Lookup in
            await cached(key, environment: environment, through: lease)
        } refreshedMeanwhile: { (lookup: Lookup) -> Bool in
            guard case .usable = lookup else { return false }
            logger.debug("session obtained meanwhile by another process", metadata: ["profile": "\(key.profile)"])
            return true
        } refresh: { (_: Lookup) async throws(CredentialsError) -> Lookup in
            .obtained(try await obtain())
        } write: { (obtained: Lookup, lease: StoreLease) async throws(CredentialsError) in
            if case .obtained(let fresh) = obtained { await save(fresh, key: key, environment: environment, through: lease) }
        }
        switch outcome {
        case .usable(let session): return session.credentials
        case .obtained(let fresh): return fresh
        case .stale, .unavailable: preconditionFailure("LockedRefresh returns a usable or an obtained session")
        }
    }

    private enum Lookup {
        case usable(CachedSession), stale, unavailable(String), obtained(ExpiringCredentials)
    }

    private func cached(_ key: SessionKey, environment: StoreEnvironment, through lease: StoreLease? = nil) async -> Lookup {
        var bytes: [UInt8]
        do {
            if let lease {
                bytes = try await lease.get(service: Self.service, account: key.profile, environment: environment)
            } else {
                bytes = try await store.get(service: Self.service, account: key.profile, environment: environment)
            }
        } catch {
            switch error.kind {
            case .itemNotFound, .environmentMismatch: return .stale
            default: return .unavailable("\(error)")
            }
        }
        defer { SecureMemory.zero(&bytes) }
        guard let session = try? JSONDecoding.decode(CachedSession.self, from: bytes, what: "a cached session") else { return .stale }
        return session.isUsable(at: clock.now(), margin: refreshMargin) ? .usable(session) : .stale
    }

    private func save(_ fresh: ExpiringCredentials, key: SessionKey, environment: StoreEnvironment, through lease: StoreLease) async {
        guard let session = CachedSession(fresh, obtainedAt: clock.now()) else { return }
        do {
            var bytes = Array(try JSONEncoder().encode(session))
            defer { SecureMemory.zero(&bytes) }
            try await lease.set(bytes, service: Self.service, account: key.profile, label: "session (\(fresh.source))", environment: environment)
        } catch {
            logger.warning("the session was not cached", metadata: ["profile": "\(key.profile)", "reason": "\(Redaction.quoted("\(error)"))"])
        }
    }

    private func uncached(
        _ obtain: () async throws(CredentialsError) -> ExpiringCredentials, reason: String
    ) async throws(CredentialsError) -> ExpiringCredentials {
        try await UncachedSessions(reason: reason, logger: logger).obtainWarning(obtain)
    }
}

/// No cache, and a warning saying why each time a session is obtained without one (no store
/// is set up, or it cannot be unlocked without a prompt).
public struct UncachedSessions: SessionCache {
    let reason: String
    let logger: Logger

    /// Warns on `logger` with `reason`.
    public init(reason: String, logger: Logger) {
        self.reason = reason
        self.logger = logger
    }

    public func session(
        for key: SessionKey, obtain: () async throws(CredentialsError) -> ExpiringCredentials
    ) async throws(CredentialsError) -> ExpiringCredentials {
        try await obtainWarning(obtain)
    }

    /// The one warning a session obtained without the cache gets, then the session.
    func obtainWarning(
        _ obtain: () async throws(CredentialsError) -> ExpiringCredentials
    ) async throws(CredentialsError) -> ExpiringCredentials {
        logger.warning("sessions are not cached", metadata: ["reason": "\(Redaction.quoted(reason))"])
        return try await obtain()
    }
}

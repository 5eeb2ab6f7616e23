public import MultiAuthCore
public import MultiAuthCredentials
import MultiAuthCrypto
public import MultiAuthStore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What signing in through a SAML identity provider again needs: its SSO URL, the role
/// chosen, the session's length, STS's region and where the provider's metadata is.
public struct SAMLSignInSettings: Sendable, Codable, Equatable {
    /// The identity provider's SSO endpoint.
    public var idpURL: String
    /// The role assumed and its provider.
    public var role: SAMLRole
    /// The session length asked for, when one was.
    public var durationSeconds: Int?
    /// STS's region.
    public var region: String
    /// Where the identity provider's metadata is (a file or URL), when its signature is checked here.
    public var metadata: String?

    /// Settings.
    public init(idpURL: String, role: SAMLRole, durationSeconds: Int?, region: String, metadata: String? = nil) {
        self.idpURL = idpURL
        self.role = role
        self.durationSeconds = durationSeconds
        self.region = region
        self.metadata = metadata
    }
}

/// A new SAML session: STS's credentials and the assertion they came from.
public struct SAMLSignInResult: Sendable {
    /// The role session.
    public let credentials: ExpiringCredentials
    /// The assertion's `ID`.
    public let assertionID: String

    /// A result.
    public init(credentials: ExpiringCredentials, assertionID: String) {
        self.credentials = credentials
        self.assertionID = assertionID
    }
}

/// SAML sessions kept by name in a ``CredentialStore`` (service `multiauth.saml-session`), with
/// what signing in again needs. When a session is spent and `renew` is given, one process signs
/// in (one browser) under the store's lock while the others wait and then use its session; when
/// that sign-in fails, the processes that waited for it (and those asking within
/// `SSOSignIn.failureHold` seconds after) fail too instead of each opening a browser.
public struct SAMLSessions: Sendable {
    /// The store service sessions live under; the account is the session's name.
    public static let service = "multiauth.saml-session"

    /// Signs in again with the settings of a spent session.
    public typealias Renewal = @Sendable (SAMLSignInSettings) async throws(CredentialsError) -> SAMLSignInResult

    let store: CredentialStore
    let clock: TimeSource
    let renew: Renewal?
    let renewWait: Duration

    /// Sessions in `store`. `renew` signs in again when one is spent (without it, a spent
    /// session is an error); a process waits at most `renewWait` for another's sign-in.
    public init(store: CredentialStore, clock: TimeSource = .system, renew: Renewal? = nil, renewWait: Duration = .seconds(600)) {
        self.store = store
        self.clock = clock
        self.renew = renew
        self.renewWait = renewWait
    }

    /// Keeps `result` as the session `name`, with `settings` for signing in again.
    public func save(_ result: SAMLSignInResult, settings: SAMLSignInSettings, name: String) async throws(CredentialsError) {
        guard let record = Record(result, settings: settings, now: clock.now()) else {
            throw .serviceError(service: "sts", code: "MalformedResponse", message: "the SAML session has no expiry")
        }
        do { try await write(record, name: name, through: nil) } catch { throw .invalidSetting(source: "the credential store", problem: "\(error)") }
    }

    /// Whether the session `name` was obtained with the assertion `assertionID`: a response
    /// used twice.
    public func wasObtained(with assertionID: String, name: String) async -> Bool {
        guard case .found(let record) = await read(name, through: nil) else { return false }
        return record.assertionID == assertionID
    }

    /// The session `name` while it has more than five minutes left; else a new one from
    /// `renew` (once for every process that needs it at the same time).
    public func session(named name: String) async throws(CredentialsError) -> ExpiringCredentials {
        let asked = clock.now()
        let first = await read(name, through: nil)
        if case .found(let record) = first, record.session.isUsable(at: asked, margin: 300) { return record.session.credentials }
        guard case .found(let spent) = first else { throw Self.missing(name, first) }
        guard let renew else { throw .loginNeeded(what: "the SAML session \(name) expired", command: "multiauth login saml --name \(name)") }
        let outcome = try await LockedRefresh.run { () async throws(CredentialsError) -> StoreLease in
            do { return try await store.lease(timeout: renewWait) } catch { throw .timedOut(source: "waiting for another sign-in of \(name)", seconds: renewWait.inSeconds) }
        } read: { (lease: StoreLease) async throws(CredentialsError) -> Lookup in
            await read(name, through: lease)
        } refreshedMeanwhile: { (lookup: Lookup) -> Bool in
            guard case .found(let record) = lookup else { return false }
            return record.session.isUsable(at: clock.now(), margin: 300) || (record.failedAt ?? 0) >= asked - SSOSignIn.failureHold
        } refresh: { (lookup: Lookup) async throws(CredentialsError) -> Lookup in
            let current = if case .found(let record) = lookup { record } else { spent }
            do throws(CredentialsError) {
                let result = try await renew(current.settings)
                return Record(result, settings: current.settings, now: clock.now()).map(Lookup.found) ?? .failed(current, "the session has no expiry")
            } catch { return .failed(current, error.message) }
        } write: { (lookup: Lookup, lease: StoreLease) async throws(CredentialsError) in
            switch lookup {
            case .found(let record): try? await write(record, name: name, through: lease)
            case .failed(var record, let problem):
                record.failedAt = clock.now()
                record.failure = problem
                try? await write(record, name: name, through: lease)
            case .absent, .unreadable: break
            }
        }
        switch outcome {
        case .found(let record) where record.session.isUsable(at: clock.now(), margin: 300): return record.session.credentials
        case .found(let record), .failed(let record, _):
            throw .loginNeeded(what: "signing in again for the SAML session \(name) failed (\(record.failure ?? "no session"))", command: "multiauth login saml --name \(name)")
        case .absent, .unreadable: throw Self.missing(name, outcome)
        }
    }

    private static func missing(_ name: String, _ lookup: Lookup) -> CredentialsError {
        if case .unreadable(let problem) = lookup { return .invalidSetting(source: "the credential store", problem: problem) }
        return .loginNeeded(what: "there is no SAML session \(name)", command: "multiauth login saml --name \(name)")
    }

    struct Record: Codable {
        var session: CachedSession
        var settings: SAMLSignInSettings
        var assertionID: String
        var failedAt: Double?
        var failure: String?

        init?(_ result: SAMLSignInResult, settings: SAMLSignInSettings, now: Double) {
            guard let session = CachedSession(result.credentials, obtainedAt: now) else { return nil }
            self.session = session
            self.settings = settings
            assertionID = result.assertionID
        }
    }

    enum Lookup {
        case found(Record), absent, unreadable(String), failed(Record, String)
    }

    private func read(_ name: String, through lease: StoreLease?) async -> Lookup {
        var bytes: [UInt8]
        do throws(StoreError) {
            if let lease {
                bytes = try await lease.get(service: Self.service, account: name)
            } else {
                bytes = try await store.get(service: Self.service, account: name)
            }
        } catch {
            if case .itemNotFound = error.kind { return .absent }
            return .unreadable("\(error)")
        }
        defer { SecureMemory.zero(&bytes) }
        guard let record = try? JSONDecoding.decode(Record.self, from: bytes, what: "a SAML session") else {
            return .unreadable("the SAML session \(name) in the store is not one MultiAuth wrote")
        }
        return .found(record)
    }

    private func write(_ record: Record, name: String, through lease: StoreLease?) async throws(StoreError) {
        var bytes = (try? Array(JSONEncoder().encode(record))) ?? []
        defer { SecureMemory.zero(&bytes) }
        let label = "SAML session (\(record.settings.role.roleArn))"
        if let lease {
            try await lease.set(bytes, service: Self.service, account: name, label: label)
        } else {
            try await store.set(bytes, service: Self.service, account: name, label: label)
        }
    }
}

extension StoreSessionCache {
    /// The SAML session `name`, renewed as ``SAMLSessions`` does with this cache's `renewSAML`.
    public func signedInSession(named name: String, profile: String) async throws(CredentialsError) -> ExpiringCredentials {
        try await SAMLSessions(store: store, clock: clock, renew: renewSAML).session(named: name)
    }
}

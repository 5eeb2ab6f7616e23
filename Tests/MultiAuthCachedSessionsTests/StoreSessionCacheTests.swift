import Foundation
import MultiAuthCachedSessions
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthStore
import MultiAuthTesting
import Synchronization
import Testing

/// Sessions cached in a credential store, on a clock the test moves: two caches on one store
/// stand for two processes.
struct StoreSessionCacheTests {
    /// A wall clock the test sets.
    final class SetClock: Sendable {
        let seconds = Mutex(1_800_000_000.0)
        var source: TimeSource { TimeSource { [self] in seconds.withLock { $0 } } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    /// Counts how often a session is obtained; each lasts an hour from the clock's now.
    final class Obtainer: Sendable {
        let count = Mutex(0)
        let clock: SetClock
        init(_ clock: SetClock) { self.clock = clock }

        func obtain() throws(CredentialsError) -> ExpiringCredentials {
            let number = count.withLock { $0 += 1; return $0 }
            let now = clock.seconds.withLock { $0 }
            return ExpiringCredentials(
                AWSCredentials(accessKeyId: "ASIASESSION\(number)", secretAccessKey: "session-secret-\(number)", sessionToken: "token-\(number)"),
                expiration: Date(timeIntervalSince1970: now + 3600), source: "STS AssumeRole")
        }
    }

    static let key = SessionKey(profile: "dev", settings: ["role_arn": "arn:aws:iam::111122223333:role/dev"])

    static func store(_ folder: TemporaryFolder) async throws -> CredentialStore {
        let store = CredentialStore(path: folder.file("sessions.store"), keySource: .dataKey([UInt8](repeating: 9, count: 32)))
        try await store.initialize()
        return store
    }

    @Test func twoProcessesShareOneSession() async throws {
        let folder = TemporaryFolder(), clock = SetClock()
        let store = try await Self.store(folder)
        let obtainer = Obtainer(clock)
        let first = try await StoreSessionCache(store: store, clock: clock.source).session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        let other = CredentialStore(path: store.path, keySource: .dataKey([UInt8](repeating: 9, count: 32)))
        let second = try await StoreSessionCache(store: other, clock: clock.source).session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        #expect(first.credentials == second.credentials && obtainer.count.withLock { $0 } == 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(bytes.range(of: Data("session-secret-1".utf8)) == nil && bytes.range(of: Data("token-1".utf8)) == nil)
    }

    /// Within 15 minutes of its expiry (the default margin, botocore's advisory window) a
    /// session is obtained again.
    @Test func aSessionNearItsExpiryIsObtainedAgain() async throws {
        let folder = TemporaryFolder(), clock = SetClock()
        let cache = StoreSessionCache(store: try await Self.store(folder), clock: clock.source)
        let obtainer = Obtainer(clock)
        _ = try await cache.session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        clock.advance(44 * 60)
        _ = try await cache.session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        #expect(obtainer.count.withLock { $0 } == 1)
        clock.advance(2 * 60)
        let renewed = try await cache.session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        #expect(obtainer.count.withLock { $0 } == 2 && renewed.credentials.accessKeyId == "ASIASESSION2")
    }

    @Test func changedSettingsGetANewSession() async throws {
        let folder = TemporaryFolder(), clock = SetClock()
        let cache = StoreSessionCache(store: try await Self.store(folder), clock: clock.source)
        let obtainer = Obtainer(clock)
        _ = try await cache.session(for: Self.key) { () throws(CredentialsError) in try obtainer.obtain() }
        let otherRole = SessionKey(profile: "dev", settings: ["role_arn": "arn:aws:iam::111122223333:role/admin"])
        let renewed = try await cache.session(for: otherRole) { () throws(CredentialsError) in try obtainer.obtain() }
        #expect(renewed.credentials.accessKeyId == "ASIASESSION2")
    }

    /// The cache never stands between a caller and credentials: a store that does not exist
    /// still gives a session, obtained directly.
    @Test func aMissingStoreStillGivesASession() async throws {
        let folder = TemporaryFolder(), clock = SetClock()
        let absent = CredentialStore(path: folder.file("absent.store"), keySource: .dataKey([UInt8](repeating: 9, count: 32)))
        let obtainer = Obtainer(clock)
        let session = try await StoreSessionCache(store: absent, clock: clock.source).session(for: Self.key) { () throws(CredentialsError) in
            try obtainer.obtain()
        }
        #expect(session.credentials.accessKeyId == "ASIASESSION1")
        #expect(!FileManager.default.fileExists(atPath: folder.file("absent.store")))
    }

    @Test func aFailureToObtainIsTheCallersError() async throws {
        let folder = TemporaryFolder()
        let cache = StoreSessionCache(store: try await Self.store(folder), clock: SetClock().source)
        await #expect {
            _ = try await cache.session(for: Self.key) { () throws(CredentialsError) in throw .notFound("no source credentials") }
        } throws: { ($0 as? CredentialsError)?.code == "Credentials.notFound" }
    }
}

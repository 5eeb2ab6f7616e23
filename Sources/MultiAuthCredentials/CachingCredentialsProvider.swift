public import Logging
public import MultiAuthCore
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Caches expiring credentials and refreshes them ahead of expiry, botocore's way, on the
/// shared `ExpiringValueCache`: inside the advisory window (15 min) one background refresh
/// runs while callers keep the current credentials, which are kept if that refresh fails;
/// inside the mandatory window (10 min) callers wait, and a transport failure while the
/// current credentials are still valid returns them. However many callers, exactly one
/// refresh is in flight, and a caller always gets one whole `ExpiringCredentials` value,
/// never a torn key/secret pair.
public final class CachingCredentialsProvider: CredentialsProvider {
    private let cache: ExpiringValueCache<ExpiringCredentials, CredentialsError>

    /// Wraps `source`. `clock` is the time the windows are measured against.
    public init(
        _ source: any CredentialsProvider, advisoryWindow: Duration = .seconds(15 * 60), mandatoryWindow: Duration = .seconds(10 * 60),
        clock: TimeSource = .system, logger: Logger = .disabled
    ) {
        cache = ExpiringValueCache(
            advisoryWindow: advisoryWindow, mandatoryWindow: mandatoryWindow, clock: clock, logger: logger,
            keepsCurrent: { error in if case .transport = error.kind { true } else { false } }
        ) { (_: Expiring<ExpiringCredentials>?) async throws(CredentialsError) -> Expiring<ExpiringCredentials> in
            let fresh = try await source.credentials()
            return Expiring(fresh, expiresAt: fresh.expiration?.timeIntervalSince1970)
        }
    }

    /// The cached credentials when they are outside the advisory window (no refresh due), else
    /// nil: for a caller on an event loop, which asks ``credentials()`` when this gives nil.
    package func credentialsWithoutWaiting() -> ExpiringCredentials? { cache.valueWithoutWaiting() }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let fresh = try await cache.value()
        if let expiration = fresh.expiration, expiration.timeIntervalSince1970 <= cache.clockNow {
            throw .expired(source: "a refresh", at: expiration)
        }
        return fresh
    }

    /// Drops the cached value, so the next call refreshes (after the service rejected it).
    public func invalidate() { cache.invalidate() }

    /// How many times the source was asked (for tests and diagnostics).
    public var refreshCount: Int { cache.refreshCount }
}

extension Result where Failure == CredentialsError {
    init(catching body: () async throws(CredentialsError) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Tries providers in order and returns the first that has credentials.
public struct CredentialsChain: CredentialsProvider {
    let providers: [any CredentialsProvider]

    /// A chain of `providers`.
    public init(_ providers: [any CredentialsProvider]) {
        self.providers = providers
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        var reasons: [String] = []
        for provider in providers {
            do { return try await provider.credentials() } catch {
                guard case .notFound(let reason) = error.kind else { throw error }
                reasons.append(reason)
            }
        }
        throw .notFound(reasons.joined(separator: "; "))
    }
}

import SigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Caches expiring credentials and refreshes them ahead of expiry, botocore's way:
/// inside the advisory window (15 min) one background refresh runs while callers keep the
/// current credentials, which are kept if that refresh fails; inside the mandatory window
/// (10 min) callers wait. However many callers, exactly one refresh is in flight, and a
/// caller always gets one whole `ExpiringCredentials` value, never a torn key/secret pair.
public actor CachingCredentialsProvider: CredentialsProvider {
    private let source: any CredentialsProvider
    private let advisoryWindow: TimeInterval
    private let mandatoryWindow: TimeInterval
    private let now: @Sendable () -> Date
    private var cached: ExpiringCredentials?
    private var inFlight: Task<Result<ExpiringCredentials, CredentialsError>, Never>?
    /// How many times the source was asked (for tests and diagnostics).
    public private(set) var refreshCount = 0

    /// Wraps `source`.
    public init(
        _ source: any CredentialsProvider, advisoryWindow: TimeInterval = 15 * 60, mandatoryWindow: TimeInterval = 10 * 60,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.advisoryWindow = advisoryWindow
        self.mandatoryWindow = mandatoryWindow
        self.now = now
    }

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        let current = now()
        if let cached {
            guard let expiration = cached.expiration else { return cached }
            let remaining = expiration.timeIntervalSince(current)
            if remaining > advisoryWindow { return cached }
            if remaining > mandatoryWindow {
                _ = startRefresh()
                return cached
            }
        }
        let fresh = try await startRefresh().value.get()
        if let expiration = fresh.expiration, expiration <= now() {
            throw .expired(source: "a refresh", at: expiration)
        }
        return fresh
    }

    /// Drops the cached value, so the next call refreshes (after the service rejected it).
    public func invalidate() { cached = nil }

    private func startRefresh() -> Task<Result<ExpiringCredentials, CredentialsError>, Never> {
        if let inFlight { return inFlight }
        let source = self.source
        refreshCount += 1
        let task = Task { () -> Result<ExpiringCredentials, CredentialsError> in
            let result = await Result<ExpiringCredentials, CredentialsError>(catching: { () async throws(CredentialsError) in
                try await source.credentials()
            })
            self.finish(result)
            return result
        }
        inFlight = task
        return task
    }

    private func finish(_ result: Result<ExpiringCredentials, CredentialsError>) {
        inFlight = nil
        if case .success(let fresh) = result { cached = fresh }
    }
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
                guard case .notFound(let reason) = error else { throw error }
                reasons.append(reason)
            }
        }
        throw .notFound(reasons.joined(separator: "; "))
    }
}

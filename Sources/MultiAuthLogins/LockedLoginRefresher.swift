import Logging
import MultiAuthCore
import MultiAuthCrypto
import MultiAuthStore
import MultiAuthTokens

/// Refreshes a saved login inside one store transaction, so a provider that rotates refresh
/// tokens strictly never sees one spent twice and a rotated one is never lost:
///
/// 1. take the store's lease (another process refreshing holds it: wait as long as a refresh
///    may take; when it cannot be had, or the caller's time runs out, nothing is refreshed and
///    nothing is spent);
/// 2. read the login again: when another process already refreshed it (the stored tokens are
///    newer than ours and not expired), use those, with no call: refreshing again would gain
///    nothing (if they are inside the margin, the next call refreshes them under the lease);
/// 3. otherwise refresh the newer of the stored and held tokens, and save the result before
///    the lease is released.
///
/// A save that still fails after three tries (the disk is full) does not throw the new
/// tokens away: they are returned, so this process keeps using them and its next refresh
/// saves again, and the failure is logged as a warning.
struct LockedLoginRefresher: TokenRefresher {
    /// How long a refresh waits for another process's: as long as a refresh may take (its
    /// calls are bounded at 30 s), or the store's lock timeout if that is longer.
    static let refreshWait: Duration = .seconds(40)

    let logins: LoginStore
    let name: String
    let record: LoginRecord
    let refresher: any TokenRefresher
    let clock: TimeSource
    let logger: Logger

    func refresh(_ held: AuthTokens) async throws(TokenError) -> AuthTokens {
        let record = try await LockedRefresh.run { () async throws(TokenError) -> StoreLease in
            do { return try await logins.store.lease(timeout: max(logins.store.lockTimeout, Self.refreshWait)) } catch {
                throw .storage(UnderlyingError(error, context: "the login was not refreshed (its refresh token is unspent)"))
            }
        } read: { lease async throws(TokenError) in
            try await read(lease)
        } refreshedMeanwhile: { stored in
            let meanwhile = stored.tokens != held && stored.tokens.expiresAt >= held.expiresAt && Double(stored.tokens.expiresAt) > clock.now()
            if meanwhile { logger.debug("login already refreshed by another process", metadata: ["login": "\(name)"]) }
            return meanwhile
        } refresh: { stored async throws(TokenError) in
            let current = stored.tokens.expiresAt >= held.expiresAt ? stored.tokens : held
            var fresh = stored
            fresh.tokens = current.refreshed(with: try await refresher.refresh(current))
            return fresh
        } write: { fresh, lease async throws(TokenError) in
            await save(fresh, through: lease)
        }
        return record.tokens
    }

    private func read(_ lease: StoreLease) async throws(TokenError) -> LoginRecord {
        var bytes: [UInt8]
        do { bytes = try await lease.get(service: LoginStore.service, account: name, environment: record.environment) } catch {
            if case .itemNotFound = error.kind { throw .loginRequired(name: name, reason: "the login was removed from \(logins.store.path)") }
            throw .storage(UnderlyingError(error))
        }
        defer { SecureMemory.zero(&bytes) }
        return try logins.decode(bytes, name: name)
    }

    private func save(_ updated: LoginRecord, through lease: StoreLease) async {
        var lastError = ""
        let retry = Backoff(base: .milliseconds(50), cap: .milliseconds(200), maxAttempts: 3)
        for attempt in 1...retry.maxAttempts {
            do {
                var bytes = try logins.encode(updated)
                defer { SecureMemory.zero(&bytes) }
                try await lease.set(bytes, service: LoginStore.service, account: name, label: "login (\(updated.flow))", environment: updated.environment)
                return
            } catch {
                lastError = "\(error)"
                logger.debug("saving the refreshed login failed", metadata: ["login": "\(name)", "attempt": "\(attempt)"])
                guard retry.allowsRetry(after: attempt) else { break }
                do { try await retry.wait(after: attempt) } catch { break }
            }
        }
        logger.warning(
            "the refreshed login could not be saved; this process keeps the new tokens, and another may need a new login",
            metadata: ["login": "\(name)", "reason": "\(Redaction.quoted(lastError))"])
    }
}

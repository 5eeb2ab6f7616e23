import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a command signs a person in to IAM Identity Center again (a device authorization in a
/// browser, ``SSODeviceLogin``) when the cached login has expired and cannot be refreshed.
/// Any number of processes that need the login at once make one sign-in: one of them signs in
/// under the cache's lock file, the others wait (as long as the `wait` given) and read its login; when
/// that sign-in fails, the processes that waited for it, and those that ask within
/// ``failureHold`` after, fail with its reason instead of each opening a browser.
public struct SSOSignIn: Sendable {
    /// Signs in for the configuration and writes the login to the cache.
    public typealias Run = @Sendable (SSOSessionConfiguration) async throws(CredentialsError) -> Void

    let run: Run
    let wait: Duration
    /// How long a failed sign-in answers for the processes that ask after it (a batch started
    /// over some seconds would otherwise open a browser for each latecomer).
    public static let failureHold = 30.0

    /// A sign-in made by `run`; a process waits at most `wait` for another's.
    public init(wait: Duration = .seconds(600), _ run: @escaping Run) {
        self.run = run
        self.wait = wait
    }
}

extension SSOTokenProvider {
    /// What a waiter finds under the lock: the login, and whether a sign-in failed meanwhile.
    struct SignInState {
        var token: SSOToken?
        var failure: String?
    }

    /// One sign-in for every process that needs it now: under the lock, read again; use a
    /// login or a failure another process left meanwhile, else sign in.
    func signedInAgain(with signIn: SSOSignIn) async throws(CredentialsError) -> String {
        let asked = clock.now()
        let failurePath = cache.lockPath(for: configuration) + ".failed"
        let state = try await LockedRefresh.run { () async throws(CredentialsError) -> HeldFileLock in
            do throws(PathSafetyError) { try PathSafety.prepareFolder(cache.folder) } catch {
                throw .ssoCache(path: cache.folder, problem: "cannot be prepared: \(error)")
            }
            do throws(FileLockError) { return try await FileLock.acquire(path: cache.lockPath(for: configuration), timeout: signIn.wait) } catch {
                if case .timedOut = error.kind {
                    throw .timedOut(source: "waiting for another sign-in to \(configuration.startURL)", seconds: signIn.wait.inSeconds)
                }
                throw .ssoCache(path: cache.lockPath(for: configuration), problem: "cannot be locked: \(error)")
            }
        } read: { _ throws(CredentialsError) in
            SignInState(token: try cache.read(configuration), failure: Self.failure(at: failurePath, since: asked - SSOSignIn.failureHold))
        } refreshedMeanwhile: { state in
            state.failure != nil || state.token.map { remaining($0) > 0 } == true
        } refresh: { _ async throws(CredentialsError) in
            do throws(CredentialsError) {
                try await signIn.run(configuration)
            } catch {
                _ = try? AtomicFileWrite.replace(path: failurePath, contents: Array(error.message.utf8))
                throw error
            }
            try? FileManager.default.removeItem(atPath: failurePath)
            return SignInState(token: try cache.read(configuration), failure: nil)
        } write: { _, _ throws(CredentialsError) in }
        if let failure = state.failure {
            throw .ssoLoginNeeded(what: "signing in again to \(configuration.startURL) failed in another process (\(failure))", command: loginCommand)
        }
        guard let token = state.token, remaining(token) > 0 else {
            throw .ssoLoginNeeded(what: "the sign-in to \(configuration.startURL) left no valid login", command: loginCommand)
        }
        return token.accessToken
    }

    /// The reason a sign-in failed, when it failed at `since` or later (whole seconds).
    private static func failure(at path: String, since: Double) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970, modified >= since.rounded(.down)
        else { return nil }
        guard case .success(let bytes) = BoundedFileRead.contents(atPath: path, limit: 4_096) else { return "unknown" }
        return String(decoding: bytes, as: UTF8.self)
    }
}

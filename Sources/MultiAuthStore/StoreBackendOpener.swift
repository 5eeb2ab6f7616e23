import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens the backend a store location names: how a program turns `--store`/`MULTIAUTH_STORE`
/// (a path, `postgres://…`, `secretsmanager://…`, `ssm://…`) into a ``StoreBackend``. Each
/// backend module offers one (`AWSStoreBackend.Opener`, `PostgresStoreBackend.Opener`), so a
/// program links only the backends it lists.
public protocol StoreBackendOpener: Sendable {
    /// True when `location` is one of this backend's (by its scheme).
    func opens(_ location: String) -> Bool
    /// The backend at `location`, waiting at most `lockTimeout` seconds for its lock.
    /// - Throws: ``StoreError`` for a location this backend cannot use.
    func open(_ location: String, lockTimeout: Duration) throws(StoreError) -> any StoreBackend
}

extension CredentialStore {
    /// The backend `location` names: the first of `openers` that opens it, else a file at
    /// that path. A URL (`scheme://`) no opener takes is refused rather than taken for a path.
    /// - Throws: ``StoreError/readFailed(path:reason:)`` naming the scheme no opener takes, or
    ///   the opener's error.
    public static func backend(at location: String, lockTimeout: Duration = .seconds(5), openers: [any StoreBackendOpener]) throws(StoreError) -> any StoreBackend {
        if let opener = openers.first(where: { $0.opens(location) }) { return try opener.open(location, lockTimeout: lockTimeout) }
        if let scheme = location.firstRange(of: "://").map({ location[..<$0.lowerBound] }), !scheme.contains("/") {
            throw .readFailed(path: Redaction.url(location), reason: "no store backend here opens \(scheme):// locations")
        }
        return FileStoreBackend(path: location)
    }
}

import MultiAuthAWSStoreBackends
import MultiAuthCore
import MultiAuthCredentials
package import MultiAuthStore
package import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoreOptions {
    /// Where `--store` (else `MULTIAUTH_STORE`, else the default file) says the store is.
    package func backend() throws -> any StoreBackend {
        try CredentialStore.backend(at: storePath, lockTimeout: .clamped(seconds: lockTimeout), openers: StoreOpeners.all())
    }

    /// How often a server looks whether the store changed, unless told: a file is a stat
    /// (1 s); a remote store is a request (30 s; PostgreSQL also notifies at once).
    package var defaultRefreshInterval: Double { storePath.contains("://") ? 30 : 1 }

    /// True for a PostgreSQL URL (`postgres://` or `postgresql://`).
    package static func isPostgres(_ location: String) -> Bool { location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") }

    /// True when `arguments` (`--store`/`--path`, else `MULTIAUTH_STORE`) name a PostgreSQL
    /// store: `multiauth` hands such a command to `multiauth-server`, which links postgres-nio.
    package static func namePostgres(_ arguments: [String]) -> Bool {
        var named: String?
        for (index, argument) in arguments.enumerated() {
            for flag in ["--store", "--path"] {
                if argument == flag, index + 1 < arguments.count { named = arguments[index + 1] }
                if argument.hasPrefix(flag + "=") { named = String(argument.dropFirst(flag.count + 1)) }
            }
        }
        return isPostgres(named ?? ProcessInfo.processInfo.environment["MULTIAUTH_STORE"] ?? "")
    }

    /// True when the store is a file on this host.
    package var isFile: Bool { !storePath.contains("://") }
}

/// The store backends the running executable opens: AWS's in both; PostgreSQL's only in
/// `multiauth-server`, which adds it (the lean `multiauth` links no SwiftNIO).
package enum StoreOpeners {
    /// Openers an executable adds at start.
    package static let added = Mutex<[any StoreBackendOpener]>([])

    /// True when this executable opens PostgreSQL stores.
    package static var opensPostgres: Bool { added.withLock { $0.contains { $0.opens("postgres://") } } }

    static func all() -> [any StoreBackendOpener] {
        let http = CommandTimeout.transport()
        let aws = AWSStoreBackend.Opener(credentials: { DefaultCredentialsChain.make(http: http) }, http: http, logger: TraceLog.logger(verbose: false))
        return added.withLock { $0 } + [aws]
    }
}

import AWSStoreBackends
import CredentialProviders
import CredentialStore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoreOptions {
    /// Where `--store` (else `MULTIAUTH_STORE`, else the default file) says the store is.
    package func backend() throws -> any StoreBackend {
        let location = storePath
        let environment = ProcessInfo.processInfo.environment
        if Self.isPostgres(location) {
            guard let open = PostgresOpener.registered.withLock({ $0 }) else {
                throw CLIError("--store", "a postgres:// store is opened by \(ServerCommand.executableName), which this executable could not hand the command to")
            }
            return try open(location, max(lockTimeout, 10), environment)
        }
        if AWSStoreBackend.isAWS(location) {
            let http = CommandTimeout.transport()
            return try AWSStoreBackend(
                url: location, credentials: DefaultCredentialsChain.make(http: http), http: http, logger: TraceLog.logger(verbose: false))
        }
        return FileStoreBackend(path: location)
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

/// How a PostgreSQL store is opened, registered by `multiauth-server` (the executable that
/// links postgres-nio): `multiauth` itself links no SwiftNIO.
package enum PostgresOpener {
    /// Opens the store at a `postgres://` location with a lock timeout, reading `PGPASSWORD`
    /// and the like from the environment.
    package typealias Open = @Sendable (_ location: String, _ lockTimeout: Double, _ environment: [String: String]) throws -> any StoreBackend

    /// The opener, once registered.
    package static let registered = Mutex<Open?>(nil)
}

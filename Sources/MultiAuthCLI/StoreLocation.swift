import AWSStoreBackends
import CredentialProviders
import CredentialStore
import PostgresStore

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
        if PostgresStoreURL.isPostgres(location) {
            return PostgresStoreBackend(url: try PostgresStoreURL(location, environment: environment), timeout: max(lockTimeout, 10))
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

    /// True when the store is a file on this host.
    package var isFile: Bool { !storePath.contains("://") }
}

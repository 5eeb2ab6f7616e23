import Synchronization

/// Which live clients use which database files in this process, so two clients never
/// share files for different APIs or auth modes (the AppSync SDK's prefix tracker, which
/// raises `cacheConfigurationAlreadyInUse`).
final class CacheRegistry: Sendable {
    static let shared = CacheRegistry()

    private struct Owner: Sendable {
        let url: String
        let mode: String
        var clients: Int
    }

    private let owners = Mutex<[String: Owner]>([:])

    /// A claim on a database file, released when its client goes away.
    final class Registration: Sendable {
        let path: String
        let registry: CacheRegistry

        init(path: String, registry: CacheRegistry) {
            self.path = path
            self.registry = registry
        }

        func release() { registry.release(path) }
    }

    /// Claims `path` for (`url`, `mode`); a claim for the same pair is shared.
    /// - Throws: ``CacheError/alreadyInUse(file:ownerURL:ownerMode:)`` when another pair holds it.
    func claim(_ path: String, url: String, mode: String) throws(CacheError) -> Registration {
        let conflict: Owner? = owners.withLock { owners in
            if let owner = owners[path] {
                guard owner.url == url, owner.mode == mode else { return owner }
                owners[path]?.clients += 1
                return nil
            }
            owners[path] = Owner(url: url, mode: mode, clients: 1)
            return nil
        }
        if let conflict { throw .alreadyInUse(file: path, ownerURL: conflict.url, ownerMode: conflict.mode) }
        return Registration(path: path, registry: self)
    }

    private func release(_ path: String) {
        owners.withLock { owners in
            guard let owner = owners[path] else { return }
            if owner.clients <= 1 { owners[path] = nil } else { owners[path]?.clients -= 1 }
        }
    }
}

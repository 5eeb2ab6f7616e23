import MultiAuthStore
import Testing

/// A store location turned into a backend: the first opener that takes it, a path otherwise,
/// and a URL no opener takes refused by its scheme rather than taken for a relative path.
@Suite struct StoreBackendOpenerTests {
    struct Memory: StoreBackendOpener {
        func opens(_ location: String) -> Bool { location.hasPrefix("memory://") }
        func open(_ location: String, lockTimeout: Duration) throws(StoreError) -> any StoreBackend {
            FileStoreBackend(path: "/opened-by-memory" + location.dropFirst("memory://".count))
        }
    }

    @Test func theFirstOpenerThatTakesALocationOpensIt() throws {
        let backend = try CredentialStore.backend(at: "memory://x", openers: [Memory()])
        #expect(backend.location == "/opened-by-memoryx")
    }

    @Test func aPathIsAFile() throws {
        let backend = try CredentialStore.backend(at: "stores/credentials.store", openers: [Memory()])
        #expect(backend is FileStoreBackend && backend.location == "stores/credentials.store")
    }

    @Test func aURLNoOpenerTakesIsRefusedByItsScheme() {
        let error = #expect(throws: StoreError.self) { try CredentialStore.backend(at: "postgres://u:secret@h/db", openers: [Memory()]) }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("postgres://") && !text.contains("secret"), "\(text)")
    }
}

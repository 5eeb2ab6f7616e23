import Foundation
import MultiAuthStore
import MultiAuthTesting
import Testing

/// ssh-style refusals: open to others, owned by someone else, a symlink.
@Suite(.timeLimit(.minutes(5))) struct PermissionTests {
    func expectRefused(_ store: CredentialStore, _ path: String) async {
        await #expect {
            try await store.list()
        } throws: { error in
            guard case .insecurePermissions(let reported, _, _)? = (error as? StoreError)?.kind else { return false }
            return reported == path
        }
    }

    @Test func aStoreReadableByOthersIsRefusedWithTheFix() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        chmod(store.path, 0o640)
        do {
            _ = try await store.list()
            Issue.record("a store open to others was accepted")
        } catch {
            #expect(error.description.contains("chmod 600 \(store.path)"))
        }
        await expectRefused(store, store.path)
    }

    @Test func aKeyFileReadableByOthersIsRefused() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        chmod(folder.file("key"), 0o644)
        await expectRefused(reopened(store, in: folder), folder.file("key"))
    }

    @Test func aSymlinkedStoreIsRefused() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        symlink(store.path, folder.file("link.store"))
        let linked = CredentialStore(path: folder.file("link.store"), keySource: .keyFile(path: folder.file("key")))
        await expectRefused(linked, folder.file("link.store"))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file away: scripts/test runs as root"))
    func aStoreOwnedByAnotherUserIsRefused() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        chown(store.path, 65534, 65534)
        await expectRefused(store, store.path)
    }

    @Test func aFolderWritableByOthersIsRefusedAndANewOneIs0700() async throws {
        let folder = TemporaryFolder()
        let nested = folder.file("deeper/multiauth")
        let store = CredentialStore(path: nested + "/c.store", keySource: .keyFile(path: folder.file("key")))
        try await store.initialize()
        let attributes = try FileManager.default.attributesOfItem(atPath: nested)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        chmod(nested, 0o777)
        await expectRefused(store, nested)
    }

    @Test func aMalformedOrMissingKeyFileIsKeyUnavailable() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        writeBytes(Array("not hex\n".utf8), to: folder.file("key"))
        await #expect { try await reopened(store, in: folder).list() } throws: { error in
            guard case .keyUnavailable(let reason)? = (error as? StoreError)?.kind else { return false }
            return reason.contains("malformed")
        }
        let other = CredentialStore(path: store.path, keySource: .keyFile(path: folder.file("absent")))
        await #expect { try await other.list() } throws: { error in
            guard case .keyUnavailable? = (error as? StoreError)?.kind else { return false }
            return true
        }
    }
}

import Foundation
import MultiAuthCrypto
import MultiAuthStore

/// A fresh private folder per test, removed afterwards.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-store-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A store unlocked by a key file in `folder`, initialized.
func keyFileStore(in folder: TemporaryFolder, lockTimeout: Duration = .seconds(5)) async throws -> CredentialStore {
    let store = CredentialStore(
        path: folder.file("creds.store"), keySource: .keyFile(path: folder.file("key")), lockTimeout: lockTimeout)
    try await store.initialize()
    return store
}

func reopened(_ store: CredentialStore, in folder: TemporaryFolder) -> CredentialStore {
    CredentialStore(path: store.path, keySource: .keyFile(path: folder.file("key")))
}

func readBytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

func writeBytes(_ bytes: [UInt8], to path: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
}

/// Rewrites the header checksum (bytes 84..<116) after a deliberate header edit, so the
/// edit reaches the checks behind the checksum.
func withFixedChecksum(_ bytes: [UInt8]) -> [UInt8] {
    var copy = bytes
    let digest = SHA256Hasher.hash(Array(bytes[0..<84])).bytes
    copy.replaceSubrange(84..<116, with: digest)
    return copy
}

import Foundation
import MultiAuthCrypto
import MultiAuthStore
import MultiAuthTesting

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

import Foundation
import MultiAuthStore
import MultiAuthTesting
import Testing

/// Every single-byte change and every truncation is detected, and the damaged file is
/// never rewritten by the library.
@Suite(.timeLimit(.minutes(5))) struct TamperTests {
    @Test func everySingleByteFlipIsDetectedAndTheFileIsLeftAlone() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await store.set(Array("secret".utf8), service: "s", account: "a")
        let original = readBytes(store.path)
        #expect(original.count > 116)
        for offset in original.indices {
            var damaged = original
            damaged[offset] ^= 0x01
            writeBytes(damaged, to: store.path)
            let view = reopened(store, in: folder)
            do {
                _ = try await view.list()
                Issue.record("flip at byte \(offset) was not detected")
            } catch {
                switch error.kind {
                case .corrupted: break
                case .unsupportedVersion where offset == 8 || offset == 9: break
                default: Issue.record("flip at byte \(offset) gave \(error)")
                }
            }
            await #expect(throws: StoreError.self) { try await view.set([1], service: "s", account: "b") }
            #expect(readBytes(store.path) == damaged, "byte \(offset): the damaged file was rewritten")
        }
    }

    @Test func truncationAtEveryLengthIsCorruption() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await store.set(Array("secret".utf8), service: "s", account: "a")
        let original = readBytes(store.path)
        for length in 0..<original.count {
            writeBytes(Array(original[0..<length]), to: store.path)
            do {
                _ = try await reopened(store, in: folder).list()
                Issue.record("truncation to \(length) bytes was not detected")
            } catch {
                guard case .corrupted = error.kind else {
                    Issue.record("length \(length) gave \(error)")
                    continue
                }
            }
        }
    }

    @Test func futureVersionsUnknownKDFsAndInsaneParametersHaveTheirOwnErrors() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        let original = readBytes(store.path)
        var future = original
        future[9] = 2
        writeBytes(future, to: store.path)
        await #expect(throws: StoreError.unsupportedVersion(path: store.path, version: 2)) { try await store.list() }

        var unknown = original
        unknown[10] = 9
        writeBytes(withFixedChecksum(unknown), to: store.path)
        await #expect(throws: StoreError.unknownKDF(path: store.path, identifier: 9)) { try await store.list() }

        var insane = original
        insane[10] = 1
        insane[11] = 30
        insane.replaceSubrange(12..<16, with: [0, 0, 0, 8])
        insane.replaceSubrange(16..<20, with: [0, 0, 0, 1])
        writeBytes(withFixedChecksum(insane), to: store.path)
        let passphraseView = CredentialStore(path: store.path, keySource: .passphrase(Array("x".utf8)))
        await #expect(throws: StoreError.unsafeKDFParameters(path: store.path, parameters: "N=2^30, r=8, p=1")) {
            try await passphraseView.list()
        }
    }
}

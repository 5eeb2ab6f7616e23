import Foundation
import MultiAuthStore
import MultiAuthTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct StoreBehaviourTests {
    let production = StoreEnvironment(["region": "us-east-1", "userPoolId": "us-east-1_prod", "appClientId": "abc"])

    @Test func roundTripThroughAFreshProcessView() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await store.set(Array("token-1".utf8), service: "svc", account: "alice", label: "Alice", environment: production)
        try await store.set(Array("token-2".utf8), service: "svc", account: "bob", environment: production)
        try await store.set(Array("token-1b".utf8), service: "svc", account: "alice", environment: production)
        let again = reopened(store, in: folder)
        #expect(try await again.get(service: "svc", account: "alice", environment: production) == Array("token-1b".utf8))
        let listed = try await again.list()
        #expect(listed.map(\.account).sorted() == ["alice", "bob"])
        #expect(listed.first { $0.account == "alice" }?.label == "Alice")
        try await again.delete(service: "svc", account: "bob")
        await #expect(throws: StoreError.itemNotFound(service: "svc", account: "bob")) {
            try await again.get(service: "svc", account: "bob", environment: production)
        }
    }

    @Test func theFileHoldsNoPlaintext() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await store.set(Array("VERY-SECRET-TOKEN".utf8), service: "svc-name", account: "acct", environment: production)
        let text = String(decoding: readBytes(store.path), as: UTF8.self)
        for visible in ["VERY-SECRET-TOKEN", "svc-name", "acct", "us-east-1_prod"] { #expect(!text.contains(visible)) }
    }

    @Test func aMissingStoreIsReportedNotCreated() async throws {
        let folder = TemporaryFolder()
        let store = CredentialStore(path: folder.file("none.store"), keySource: .keyFile(path: folder.file("key")))
        await #expect(throws: StoreError.storeMissing(path: folder.file("none.store"))) { try await store.list() }
        await #expect(throws: StoreError.storeMissing(path: folder.file("none.store"))) {
            try await store.set([1], service: "s", account: "a")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.store")))
    }

    @Test func initNeverReplacesAStore() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await store.set([7], service: "s", account: "a")
        await #expect(throws: StoreError.storeExists(path: store.path)) { try await store.initialize() }
        #expect(try await store.get(service: "s", account: "a") == [7])
    }

    @Test func environmentMismatchNamesTheFieldsAndPurgeRemovesOnlyStaleItems() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        let staging = StoreEnvironment(["region": "us-east-1", "userPoolId": "us-east-1_stage", "appClientId": "xyz"])
        try await store.set(Array("old".utf8), service: "svc", account: "a", environment: staging)
        try await store.set(Array("new".utf8), service: "svc", account: "b", environment: production)
        await #expect(throws: StoreError.environmentMismatch(service: "svc", account: "a", fields: ["appClientId", "userPoolId"])) {
            try await store.get(service: "svc", account: "a", environment: production)
        }
        let saved = try await store.getSavedWithEnvironment(service: "svc", account: "a")
        #expect(saved.secret == Array("old".utf8) && saved.environment == staging)
        await #expect(throws: StoreError.itemNotFound(service: "svc", account: "c")) {
            try await store.getSavedWithEnvironment(service: "svc", account: "c")
        }
        #expect(try await store.purge(keeping: production) == 1)
        #expect(try await store.list().map(\.account) == ["b"])
        #expect(try await store.purgeAll() == 1)
        #expect(try await store.list().isEmpty)
    }

    @Test func fingerprintsDependOnEveryFieldAndNotOnOrder() {
        let one = StoreEnvironment(["a": "1", "b": "2"])
        #expect(one.fingerprint == StoreEnvironment(["b": "2", "a": "1"]).fingerprint)
        #expect(one.fingerprint != StoreEnvironment(["a": "1", "b": "3"]).fingerprint)
        #expect(one.differingFields(from: StoreEnvironment(["a": "1", "c": "2"])) == ["b", "c"])
    }

    @Test func passphraseStoresTellAWrongPassphraseFromDamageAndRekeyAtomically() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("p.store")
        let store = CredentialStore(path: path, keySource: .passphrase(Array("correct horse".utf8)))
        try await store.initialize()
        try await store.set(Array("s".utf8), service: "svc", account: "a")
        let wrong = CredentialStore(path: path, keySource: .passphrase(Array("wrong horse".utf8)))
        await #expect(throws: StoreError.wrongPassphrase(path: path)) { try await wrong.list() }
        try await store.rekey(to: .passphrase(Array("battery staple".utf8)))
        await #expect(throws: StoreError.wrongPassphrase(path: path)) {
            try await CredentialStore(path: path, keySource: .passphrase(Array("correct horse".utf8))).list()
        }
        let renewed = CredentialStore(path: path, keySource: .passphrase(Array("battery staple".utf8)))
        #expect(try await renewed.get(service: "svc", account: "a") == Array("s".utf8))
        await #expect(throws: StoreError.wrongPassphrase(path: path)) {
            try await CredentialStore(path: path, keySource: .keyFile(path: folder.file("k"))).list()
        }
    }

    @Test func aLockHeldTooLongIsReported() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder, lockTimeout: .milliseconds(200))
        let descriptor = open(store.path + ".lock", O_RDWR)
        #expect(flock(descriptor, LOCK_EX) == 0)
        defer { close(descriptor) }
        await #expect {
            try await store.set([1], service: "s", account: "a")
        } throws: { error in
            guard case .locked(let path, let waited)? = (error as? StoreError)?.kind else { return false }
            return path == store.path && waited >= 0.2
        }
    }

    @Test func concurrentTasksLoseNoUpdate() async throws {
        let folder = TemporaryFolder()
        let store = try await keyFileStore(in: folder)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for item in 0..<25 {
                        try await reopened(store, in: folder).set([UInt8(item)], service: "t\(task)", account: "i\(item)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.list().count == 200)
    }
}

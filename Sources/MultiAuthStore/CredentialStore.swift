public import Logging
public import MultiAuthCore
import MultiAuthCrypto
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An encrypted store of secrets addressed by (service, account), the keychain of MultiAuth
/// on Linux: AES-256-GCM, a passphrase (scrypt), key file or KMS data key, crash-safe
/// writes, a lock across processes (and hosts, for a shared backend), ssh-style permission
/// checks, and an environment per item.
///
/// Where the encrypted image lives is its ``StoreBackend``: a file on this host by default,
/// or a shared one (PostgreSQL, AWS Secrets Manager, SSM Parameter Store). Whatever the
/// backend, the items are encrypted before they leave the process. Blocking work (files,
/// scrypt) runs off the cooperative pool. A damaged image is reported as
/// ``StoreError/corrupted(path:reason:)`` and is never overwritten or deleted by the library.
public final class CredentialStore: Sendable {
    /// Where the store is: its file, or its backend's location (never with a password).
    public var path: String { backend.location }
    /// Where the encrypted image lives.
    public let backend: any StoreBackend
    /// How long a read-modify-write waits for another process's lock, in seconds.
    public let lockTimeout: Duration
    private let keySource: StoreKeySource
    private let unlocked = Mutex<UnlockedKeys?>(nil)
    /// The highest image generation this object has read (``checkBinding(_:)``).
    private let highestGeneration = Mutex<UInt64>(0)

    private let logger: Logger

    private struct UnlockedKeys: Sendable {
        let kdf: StoreFormat.KDF
        let salt: [UInt8]
        let scrypt: Scrypt.Parameters
        let keys: DerivedStoreKeys
    }

    /// Opens (lazily) the store file at `path`, unlocked by `keySource`. `logger` gets a debug
    /// line per operation (path, service, account; never a secret).
    public convenience init(path: String = CredentialStore.defaultPath, keySource: StoreKeySource, lockTimeout: Duration = .seconds(5), logger: Logger = .disabled) {
        self.init(backend: FileStoreBackend(path: path), keySource: keySource, lockTimeout: lockTimeout, logger: logger)
    }

    /// Opens (lazily) the store that `backend` holds, unlocked by `keySource`.
    public init(backend: any StoreBackend, keySource: StoreKeySource, lockTimeout: Duration = .seconds(5), logger: Logger = .disabled) {
        self.backend = backend
        self.keySource = keySource
        self.lockTimeout = lockTimeout
        self.logger = logger
    }

    /// `MULTIAUTH_STORE`, else `$XDG_DATA_HOME/multiauth/credentials.store`, else
    /// `~/.local/share/multiauth/credentials.store`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MULTIAUTH_STORE"], !path.isEmpty { return path }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? ".") + "/.local/share"
        return data + "/multiauth/credentials.store"
    }

    // MARK: public operations

    /// Creates an empty store; an existing one is never replaced.
    public func initialize() async throws(StoreError) {
        guard try await backend.version() == nil else { throw .storeExists(path: path) }
        if case .keyFile(let keyPath) = keySource {
            try await offload { () throws(StoreError) in
                if try !FileSafety.checkSecretFile(keyPath) { try StoreKeyFile.generate(at: keyPath) }
            }
        }
        let header = try Self.freshHeader(kdf: keySource.kdf)
        let keys = DerivedStoreKeys(master: try await masterKey(for: keySource, header: header))
        let image = try Self.seal(StorePayload(generation: 1, store: backend.bindingName), header: header, keys: keys)
        try await holdingLock { () throws(StoreError) in try await backend.create(image) }
    }

    /// The secret for (service, account), which must have been stored for `environment`.
    public func get(service: String, account: String, environment: StoreEnvironment = .init()) async throws(StoreError) -> [UInt8] {
        logger.debug("store get", metadata: ["store": "\(path)", "service": "\(service)", "account": "\(account)"])
        return try await secret(service: service, account: account, environment: environment)
    }

    /// The secret for (service, account) and the environment it was stored for, in one read
    /// of the store: for a caller that takes the item as it was saved, wherever that was.
    public func getSavedWithEnvironment(service: String, account: String) async throws(StoreError) -> (secret: [UInt8], environment: StoreEnvironment) {
        logger.debug("store get", metadata: ["store": "\(path)", "service": "\(service)", "account": "\(account)"])
        return try await savedItem(service: service, account: account)
    }

    /// Stores `secret` for (service, account) under `environment`, replacing an earlier value.
    public func set(
        _ secret: [UInt8], service: String, account: String, label: String = "", environment: StoreEnvironment = .init()
    ) async throws(StoreError) {
        logger.debug("store set", metadata: ["store": "\(path)", "service": "\(service)", "account": "\(account)"])
        try await modify(Self.setting(secret, service: service, account: account, label: label, environment: environment))
    }

    /// Takes the store's lock (across processes, hosts on a shared backend, and tasks) and
    /// holds it until the lease is released, for a read-modify-write that waits on something
    /// else in between: a token refresh reads the login, spends its refresh token and saves
    /// the new one, and no other process may read the old one meanwhile. Waits at most
    /// `timeout` (default `lockTimeout`), or until the calling task is cancelled.
    public func lease(timeout: Duration? = nil) async throws(StoreError) -> StoreLease {
        logger.debug("store lease", metadata: ["store": "\(path)"])
        return StoreLease(store: self, lock: try await backend.lock(timeout: timeout ?? lockTimeout))
    }

    /// Removes the item for (service, account).
    public func delete(service: String, account: String) async throws(StoreError) {
        logger.debug("store delete", metadata: ["store": "\(path)", "service": "\(service)", "account": "\(account)"])
        try await modify { payload throws(StoreError) in
            guard let index = payload.items.firstIndex(where: { $0.matches(service: service, account: account) }) else {
                throw .itemNotFound(service: service, account: account)
            }
            SecureMemory.zero(&payload.items[index].secret)
            payload.items.remove(at: index)
        }
    }

    /// Every item's metadata; no secret leaves the store.
    public func list() async throws(StoreError) -> [StoreItemMetadata] {
        var payload = try await readPayload().payload
        defer { Self.zero(&payload) }
        return payload.items.map(\.metadata)
    }

    /// Removes items not made for `environment`; returns how many were removed.
    @discardableResult
    public func purge(keeping environment: StoreEnvironment) async throws(StoreError) -> Int {
        try await purge { $0.environment != environment }
    }

    /// Removes every item; returns how many were removed.
    @discardableResult
    public func purgeAll() async throws(StoreError) -> Int {
        try await purge { _ in true }
    }

    /// Re-encrypts the store under `newSource` in one atomic replacement.
    public func rekey(to newSource: StoreKeySource) async throws(StoreError) {
        try await holdingLock { () throws(StoreError) in try await rekeyHoldingLock(to: newSource) }
    }

    private func rekeyHoldingLock(to newSource: StoreKeySource) async throws(StoreError) {
        var current = try await readPayload()
        defer { Self.zero(&current.payload) }
        if case .keyFile(let keyPath) = newSource {
            try await offload { () throws(StoreError) in
                if try !FileSafety.checkSecretFile(keyPath) { try StoreKeyFile.generate(at: keyPath) }
            }
        }
        let header = try Self.freshHeader(kdf: newSource.kdf)
        let keys = DerivedStoreKeys(master: try await masterKey(for: newSource, header: header))
        try await backend.replace(try Self.seal(current.payload, header: header, keys: keys), expecting: current.version)
        unlocked.withLock { $0 = nil }
    }

    // MARK: internals

    /// Runs blocking store work (files, scrypt) off the cooperative pool.
    func offload<T: Sendable>(_ work: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        try await runBlocking { Result { () throws(StoreError) in try work() } }
    }

    /// A read-modify-write under the lock. A write that finds another writer's in between (a
    /// shared backend's lock taken over from a holder thought dead) is read and changed again,
    /// for up to the lock timeout: the write is conditional, so nothing is lost either way.
    private func modify(_ change: @escaping @Sendable (inout StorePayload) throws(StoreError) -> Void) async throws(StoreError) {
        try await holdingLock { () throws(StoreError) in
            let start = ContinuousClock.now
            var conflicts = 0
            while true {
                do throws(StoreError) { return try await modifyHoldingLock(change) } catch {
                    conflicts += 1
                    guard case .conflict = error.kind, ContinuousClock.now - start < lockTimeout else { throw error }
                    try? await Backoff(base: .milliseconds(20), cap: .milliseconds(500)).wait(after: conflicts)
                }
            }
        }
    }

    /// Runs `body` holding the backend's lock, released (and waited for) whatever happens.
    private func holdingLock(_ body: () async throws(StoreError) -> Void) async throws(StoreError) {
        let lock = try await backend.lock(timeout: lockTimeout)
        do {
            try await body()
        } catch {
            await lock.release()
            throw error
        }
        await lock.release()
    }

    /// Read, change, write; the caller holds the lock.
    func modifyHoldingLock(_ change: (inout StorePayload) throws(StoreError) -> Void) async throws(StoreError) {
        var current = try await readPayload()
        defer { Self.zero(&current.payload) }
        try change(&current.payload)
        current.payload.generation = (current.payload.generation ?? 0) + 1
        current.payload.store = backend.bindingName
        var header = current.header
        header.keyCheck = current.keys.check
        try await backend.replace(try Self.seal(current.payload, header: header, keys: current.keys), expecting: current.version)
    }

    /// The secret of one item, checked against `environment`.
    func secret(service: String, account: String, environment: StoreEnvironment) async throws(StoreError) -> [UInt8] {
        let item = try await savedItem(service: service, account: account)
        let differing = item.environment.differingFields(from: environment)
        guard differing.isEmpty else {
            throw .environmentMismatch(service: service, account: account, fields: differing)
        }
        return item.secret
    }

    /// The secret of one item and the environment it was stored for.
    private func savedItem(service: String, account: String) async throws(StoreError) -> (secret: [UInt8], environment: StoreEnvironment) {
        var payload = try await readPayload().payload
        defer { Self.zero(&payload) }
        guard let item = payload.items.first(where: { $0.matches(service: service, account: account) }) else {
            throw .itemNotFound(service: service, account: account)
        }
        return (item.secret, item.environment)
    }

    /// The change that stores `secret` for (service, account).
    static func setting(
        _ secret: [UInt8], service: String, account: String, label: String, environment: StoreEnvironment
    ) -> @Sendable (inout StorePayload) throws(StoreError) -> Void {
        { payload throws(StoreError) in
            let now = currentUnixTime()
            if let index = payload.items.firstIndex(where: { $0.matches(service: service, account: account) }) {
                SecureMemory.zero(&payload.items[index].secret)
                payload.items[index].secret = secret
                payload.items[index].label = label.isEmpty ? payload.items[index].label : label
                payload.items[index].modified = now
                payload.items[index].environment = environment
            } else {
                payload.items.append(StoredItem(
                    service: service, account: account, secret: secret, label: label, created: now, modified: now,
                    environment: environment))
            }
        }
    }

    private func purge(where shouldRemove: @escaping @Sendable (StoredItem) -> Bool) async throws(StoreError) -> Int {
        let removed = Mutex(0)
        try await modify { payload in
            let before = payload.items.count
            for index in payload.items.indices where shouldRemove(payload.items[index]) {
                SecureMemory.zero(&payload.items[index].secret)
            }
            payload.items.removeAll(where: shouldRemove)
            removed.withLock { $0 = before - payload.items.count }
        }
        return removed.withLock { $0 }
    }

    private struct Opened {
        let header: StoreFormat.Header
        let keys: DerivedStoreKeys
        let version: StoreVersion
        var payload: StorePayload
    }

    private func readPayload() async throws(StoreError) -> Opened {
        guard let image = try await backend.read() else { throw .storeMissing(path: path) }
        let header = try StoreFormat.parseHeader(image.bytes, path: path)
        guard header.kdf == keySource.kdf else {
            throw .wrongPassphrase(path: path)
        }
        let keys = try await unlock(header)
        var plaintext = try StoreFormat.open(image.bytes, header: header, keys: keys, path: path)
        defer { SecureMemory.zero(&plaintext) }
        let payload: StorePayload
        do { payload = try JSONDecoding.decode(StorePayload.self, from: plaintext, what: "the decrypted item list") } catch {
            throw .corrupted(path: path, reason: error.description)
        }
        try checkBinding(payload)
        return Opened(header: header, keys: keys, version: image.version, payload: payload)
    }

    /// Refuses an image of another store, and, on a shared backend, one older than an image
    /// this object has read (logged: someone who can write the backend but not read the store
    /// put it there, to bring back a revoked key). A file is its owner's to restore from a
    /// backup, so its generations are not compared.
    private func checkBinding(_ payload: StorePayload) throws(StoreError) {
        if let bound = payload.store, bound != backend.bindingName {
            logger.warning("store image made for another store refused", metadata: ["store": "\(path)", "image of": "\(Redaction.quoted(bound))"])
            throw .corrupted(path: path, reason: "the image was made for store '\(Redaction.quoted(bound, limit: 80))'")
        }
        guard backend.bindingName != nil else { return }
        let generation = payload.generation ?? 0
        let newest = highestGeneration.withLock { highest -> UInt64 in
            defer { highest = max(highest, generation) }
            return highest
        }
        guard generation >= newest else {
            logger.warning("older store image refused", metadata: ["store": "\(path)", "generation": "\(generation)", "seen": "\(newest)"])
            throw .corrupted(path: path, reason: "rolled back: this image is generation \(generation), after \(newest) was read")
        }
    }

    /// The keys for `header`, derived once per process and salt (scrypt runs once).
    private func unlock(_ header: StoreFormat.Header) async throws(StoreError) -> DerivedStoreKeys {
        if let cached = unlocked.withLock({ $0 }), cached.kdf == header.kdf, cached.salt == header.salt,
            cached.scrypt == header.scrypt || header.kdf != .scrypt
        {
            guard ConstantTime.equals(cached.keys.check, header.keyCheck) else { throw .wrongPassphrase(path: path) }
            return cached.keys
        }
        var master = try await masterKey(for: keySource, header: header)
        defer { SecureMemory.zero(&master) }
        let keys = DerivedStoreKeys(master: master)
        guard ConstantTime.equals(keys.check, header.keyCheck) else { throw .wrongPassphrase(path: path) }
        unlocked.withLock { $0 = UnlockedKeys(kdf: header.kdf, salt: header.salt, scrypt: header.scrypt, keys: keys) }
        return keys
    }

    /// The master key, derived off the cooperative pool (scrypt takes a tenth of a second; a
    /// key file is a file read).
    private func masterKey(for source: StoreKeySource, header: StoreFormat.Header) async throws(StoreError) -> [UInt8] {
        try await offload { () throws(StoreError) in try DerivedStoreKeys.master(for: source, header: header) }
    }

    /// A complete image of `payload`, its header's key check set from `keys`.
    private static func seal(_ payload: StorePayload, header: StoreFormat.Header, keys: DerivedStoreKeys) throws(StoreError) -> [UInt8] {
        var header = header
        header.keyCheck = keys.check
        var plaintext: [UInt8]
        do { plaintext = [UInt8](try JSONEncoder().encode(payload)) } catch {
            throw .writeFailed(path: "<memory>", reason: "cannot encode the item list")
        }
        defer { SecureMemory.zero(&plaintext) }
        return try StoreFormat.seal(plaintext, header: header, keys: keys)
    }

    private static func freshHeader(kdf: StoreFormat.KDF) throws(StoreError) -> StoreFormat.Header {
        guard let salt = try? SecureRandom.bytes(count: 16) else { throw .keyUnavailable("random salt generation failed") }
        return StoreFormat.Header(
            kdf: kdf, scrypt: StoreFormat.defaultScrypt, salt: salt, keyCheck: [], nonce: [], ciphertextLength: 0)
    }

    private static func zero(_ payload: inout StorePayload) {
        for index in payload.items.indices { SecureMemory.zero(&payload.items[index].secret) }
    }
}

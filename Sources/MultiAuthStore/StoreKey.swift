import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a store's key comes from.
public enum StoreKeySource: Sendable {
    /// A passphrase, stretched with scrypt. The bytes are held only as long as the store object.
    case passphrase([UInt8])
    /// A file holding a random 256-bit key as 64 hex digits (mode 0600), for unattended use.
    case keyFile(path: String)
    /// A random 256-bit key kept elsewhere and handed over when the store opens: a data key
    /// that a key service (AWS KMS) generated and unwrapped. The store keeps no copy of it.
    case dataKey([UInt8])

    var kdf: StoreFormat.KDF {
        switch self {
        case .passphrase: .scrypt
        case .keyFile: .keyFile
        case .dataKey: .dataKey
        }
    }
}

/// Key files: generated, read and checked.
public enum StoreKeyFile {
    /// Creates a key file with a fresh random key (mode 0600); an existing file is never replaced.
    /// - Throws: ``StoreError/storeExists(path:)`` if the file exists, or a write error.
    public static func generate(at path: String) throws(StoreError) {
        try FileSafety.prepareDirectory(FileSafety.parentDirectory(of: path))
        var key: [UInt8]
        do { key = try SecureRandom.bytes(count: 32) } catch { throw .keyUnavailable("random key generation failed") }
        defer { SecureMemory.zero(&key) }
        var text = Array((Hex.encode(key) + "\n").utf8)
        defer { SecureMemory.zero(&text) }
        try AtomicFile.createExclusively(path: path, contents: text)
    }

    /// Reads the 32-byte key from `path` after the permission checks.
    static func read(_ path: String) throws(StoreError) -> [UInt8] {
        guard try FileSafety.checkSecretFile(path) else {
            throw .keyUnavailable("no key file at \(path)")
        }
        var text: [UInt8]
        switch BoundedFileRead.contents(atPath: path, limit: 4 << 10) {
        case .success(let data): text = data
        case .failure(let failure): throw .keyUnavailable("key file \(path) \(failure)")
        }
        defer { SecureMemory.zero(&text) }
        while let last = text.last, last == 0x0a || last == 0x0d || last == 0x20 { text.removeLast() }
        guard text.count == 64, let key = try? Hex.decode(String(decoding: text, as: UTF8.self)) else {
            throw .keyUnavailable("key file \(path) is malformed: expected 64 hex digits")
        }
        return key
    }
}

/// The two keys a store's master key yields, kept apart so that the stored key-check
/// value reveals nothing about the encryption key.
struct DerivedStoreKeys: Sendable {
    var encryption: [UInt8]
    let check: [UInt8]

    init(master: [UInt8]) {
        let key = HMACSHA256Key(key: master)
        encryption = key.authenticationCode(for: Array("multiauth-store encryption v1".utf8)).bytes
        check = key.authenticationCode(for: Array("multiauth-store key check v1".utf8)).bytes
    }

    /// The master key for `source` under the header's KDF settings.
    static func master(for source: StoreKeySource, header: StoreFormat.Header) throws(StoreError) -> [UInt8] {
        switch source {
        case .keyFile(let path):
            return try StoreKeyFile.read(path)
        case .dataKey(let key):
            guard key.count == 32 else { throw .keyUnavailable("the data key is \(key.count) bytes, not 32") }
            return key
        case .passphrase(let passphrase):
            do {
                return try Scrypt.deriveKey(passphrase: passphrase, salt: header.salt, parameters: header.scrypt)
            } catch {
                throw .keyUnavailable("key derivation failed (\(header.scrypt))")
            }
        }
    }
}

import MultiAuthCrypto

/// The store file format, version 1 (all integers big-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `MAUTHSTR` |
/// | 8 | 2 | format version (1) |
/// | 10 | 1 | KDF: 1 = scrypt(passphrase), 2 = key file, 3 = a data key held elsewhere (KMS) |
/// | 11 | 1 | scrypt log2 N (0 for key file) |
/// | 12 | 4 | scrypt r |
/// | 16 | 4 | scrypt p |
/// | 20 | 16 | salt |
/// | 36 | 32 | key check: HMAC(master, "multiauth-store key check v1") |
/// | 68 | 12 | AES-GCM nonce, fresh for every write |
/// | 80 | 4 | ciphertext length |
/// | 84 | 32 | SHA-256 of bytes 0..<84 (tells damage from a wrong passphrase) |
/// | 116 | n | AES-256-GCM ciphertext of the JSON payload |
/// | 116+n | 16 | GCM tag; the associated data is bytes 0..<116 |
enum StoreFormat {
    static let magic = Array("MAUTHSTR".utf8)
    static let version: UInt16 = 1
    static let headerSize = 116
    static let tagSize = AESGCM.tagSize

    /// scrypt parameters for new stores: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s here).
    static let defaultScrypt = Scrypt.Parameters(log2N: 15, r: 8, p: 1)

    enum KDF: UInt8 {
        case scrypt = 1
        case keyFile = 2
        case dataKey = 3
    }

    struct Header {
        var kdf: KDF
        var scrypt: Scrypt.Parameters
        var salt: [UInt8]
        var keyCheck: [UInt8]
        var nonce: [UInt8]
        var ciphertextLength: Int

        /// Bytes 0..<116, the associated data.
        var encoded: [UInt8] {
            var out = magic
            out.appendBigEndian(StoreFormat.version)
            out.append(kdf.rawValue)
            out.append(kdf == .scrypt ? scrypt.log2N : 0)
            out.appendBigEndian(kdf == .scrypt ? scrypt.r : 0)
            out.appendBigEndian(kdf == .scrypt ? scrypt.p : 0)
            out += salt + keyCheck + nonce
            out.appendBigEndian(UInt32(ciphertextLength))
            out += SHA256Hasher.hash(out).bytes
            return out
        }
    }

    /// Caps on parameters read from a file: at most 256 MiB and about 4× the default work.
    static func checkCaps(_ parameters: Scrypt.Parameters) -> Bool {
        (15...20).contains(parameters.log2N) && (1...32).contains(parameters.r) && (1...4).contains(parameters.p)
            && parameters.memoryBytes <= 256 * 1024 * 1024
            && (UInt64(1) << UInt64(parameters.log2N)) * UInt64(parameters.r) * UInt64(parameters.p) <= 1 << 20
    }

    /// Parses and checks a file's header, in this order: size and magic, version, header
    /// checksum, KDF and its parameters, total length.
    static func parseHeader(_ bytes: [UInt8], path: String) throws(StoreError) -> Header {
        guard bytes.count >= 10, Array(bytes[0..<8]) == magic else {
            throw .corrupted(path: path, reason: "not a MultiAuth store (bad magic)")
        }
        let version = Int(bytes.readBigEndian(UInt16.self, at: 8))
        guard version != 0 else { throw .corrupted(path: path, reason: "format version 0") }
        guard version == Int(StoreFormat.version) else { throw .unsupportedVersion(path: path, version: version) }
        guard bytes.count >= headerSize + tagSize else { throw .corrupted(path: path, reason: "truncated header") }
        guard SHA256Hasher.hash(bytes[0..<84]).bytes == Array(bytes[84..<116]) else {
            throw .corrupted(path: path, reason: "header checksum mismatch")
        }
        guard let kdf = KDF(rawValue: bytes[10]) else { throw .unknownKDF(path: path, identifier: Int(bytes[10])) }
        let scrypt = Scrypt.Parameters(
            log2N: bytes[11], r: bytes.readBigEndian(UInt32.self, at: 12), p: bytes.readBigEndian(UInt32.self, at: 16))
        if kdf == .scrypt, !checkCaps(scrypt) { throw .unsafeKDFParameters(path: path, parameters: "\(scrypt)") }
        let length = Int(bytes.readBigEndian(UInt32.self, at: 80))
        guard bytes.count == headerSize + length + tagSize else {
            throw .corrupted(path: path, reason: "length \(bytes.count) does not match the header")
        }
        return Header(
            kdf: kdf, scrypt: scrypt, salt: Array(bytes[20..<36]), keyCheck: Array(bytes[36..<68]),
            nonce: Array(bytes[68..<80]), ciphertextLength: length)
    }

    /// Encrypts `plaintext` into a complete file image.
    static func seal(_ plaintext: [UInt8], header: Header, keys: DerivedStoreKeys) throws(StoreError) -> [UInt8] {
        var header = header
        header.ciphertextLength = plaintext.count
        do {
            header.nonce = try SecureRandom.bytes(count: AESGCM.nonceSize)
            let associated = header.encoded
            let sealed = try AESGCM.seal(plaintext, key: keys.encryption, nonce: header.nonce, associatedData: associated)
            return associated + sealed.ciphertext + sealed.tag
        } catch {
            throw .writeFailed(path: "<memory>", reason: "encryption failed: \(error)")
        }
    }

    /// Decrypts a complete file image whose header is already parsed and whose key check passed.
    static func open(_ bytes: [UInt8], header: Header, keys: DerivedStoreKeys, path: String) throws(StoreError) -> [UInt8] {
        let ciphertext = Array(bytes[headerSize..<(headerSize + header.ciphertextLength)])
        let tag = Array(bytes[(headerSize + header.ciphertextLength)...])
        do {
            return try AESGCM.open(
                ciphertext, tag: tag, key: keys.encryption, nonce: header.nonce,
                associatedData: Array(bytes[0..<headerSize]))
        } catch {
            throw .corrupted(path: path, reason: "authentication failed")
        }
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var big = value.bigEndian
        Swift.withUnsafeBytes(of: &big) { append(contentsOf: $0) }
    }

    func readBigEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size { value = value << 8 | T(self[offset + index]) }
        return value
    }
}

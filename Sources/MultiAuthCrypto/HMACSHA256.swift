import CLibCrypto

/// An HMAC-SHA256 key with its inner and outer pad states precomputed (RFC 2104).
///
/// Keying costs two SHA-256 compressions once; every message after that costs only the
/// message and one outer compression, with no allocation. The hash itself is OpenSSL's.
package struct HMACSHA256Key: Sendable, CustomStringConvertible, CustomReflectable {
    private static let blockSize = 64
    @usableFromInline var inner: SHA256Hasher
    @usableFromInline var outer: SHA256Hasher

    /// The pad states are as good as the key: neither a description nor a mirror shows them.
    package var description: String { "HMACSHA256Key" }
    /// No children (see ``description``).
    package var customMirror: Mirror { Mirror(self, children: KeyValuePairs<String, Any>()) }

    /// Prepares a key from raw key bytes. The padded key lives in a stack buffer that is
    /// zeroed before returning.
    package init(key: UnsafeRawBufferPointer) {
        var inner = SHA256Hasher()
        var outer = SHA256Hasher()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.blockSize) { block in
            block.initialize(repeating: 0)
            if key.count > Self.blockSize {
                SHA256Hasher.hash(key).withUnsafeBytes { digest in
                    for index in 0..<digest.count { block[index] = digest[index] }
                }
            } else {
                for index in 0..<key.count { block[index] = key[index] }
            }
            for index in 0..<Self.blockSize { block[index] ^= 0x36 }
            inner.update(UnsafeRawBufferPointer(block))
            for index in 0..<Self.blockSize { block[index] ^= 0x36 ^ 0x5c }
            outer.update(UnsafeRawBufferPointer(block))
            for index in 0..<Self.blockSize { block[index] = 0 }
        }
        self.inner = inner
        self.outer = outer
    }

    /// Prepares a key from a byte sequence (for example a string's UTF-8 view).
    package init<Bytes: Sequence<UInt8>>(key: Bytes) {
        if let prepared = key.withContiguousStorageIfAvailable({ HMACSHA256Key(key: UnsafeRawBufferPointer($0)) }) {
            self = prepared
        } else {
            self = Array(key).withUnsafeBytes { HMACSHA256Key(key: $0) }
        }
    }

    /// Prepares a key from a previous MAC, as SigV4 key derivation chains them.
    package init(key digest: SHA256Digest) {
        self = digest.withUnsafeBytes { HMACSHA256Key(key: $0) }
    }

    /// Returns HMAC-SHA256(key, message).
    @inlinable
    package func authenticationCode(for message: UnsafeRawBufferPointer) -> SHA256Digest {
        var innerHash = inner
        innerHash.update(message)
        let innerDigest = innerHash.finalize()
        var outerHash = outer
        innerDigest.withUnsafeBytes { outerHash.update($0) }
        return outerHash.finalize()
    }

    /// Returns HMAC-SHA256(key, message) for a byte sequence.
    package func authenticationCode<Bytes: Sequence<UInt8>>(for message: Bytes) -> SHA256Digest {
        if let digest = message.withContiguousStorageIfAvailable({
            authenticationCode(for: UnsafeRawBufferPointer($0))
        }) {
            return digest
        }
        return Array(message).withUnsafeBytes { authenticationCode(for: $0) }
    }
}

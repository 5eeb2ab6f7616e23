package import CLibCrypto

/// A 32-byte SHA-256 digest held inline, without a heap allocation.
package struct SHA256Digest: Sendable, Hashable {
    /// The digest size in bytes.
    package static let byteCount = 32

    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    @usableFromInline init() {}

    /// Creates a digest from exactly 32 bytes.
    /// - Throws: ``CryptoError/invalidLength(expected:actual:)`` for any other length.
    package init(bytes: some Collection<UInt8>) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidLength(expected: Self.byteCount, actual: bytes.count)
        }
        withUnsafeMutableBytes(of: &storage) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
    }

    /// Calls `body` with the 32 digest bytes.
    @inlinable
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage, body)
    }

    /// The digest bytes as an array.
    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The digest as 64 lowercase hexadecimal characters.
    package var hex: String { withUnsafeBytes { Hex.encode($0) } }

    package static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in ConstantTime.equals(l, r) } }
    }

    package func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Incremental SHA-256 over `SHA256_Init/Update/Final`.
///
/// The low-level context is a plain C struct, so a hasher is a value: copying it forks the
/// hash state, which is how ``HMACSHA256Key`` reuses its precomputed pads.
package struct SHA256Hasher: Sendable {
    @usableFromInline var context = SHA256_CTX()

    /// Starts a new hash.
    @inlinable
    package init() {
        SHA256_Init(&context)
    }

    /// Adds bytes to the hash.
    @inlinable
    package mutating func update(_ data: UnsafeRawBufferPointer) {
        guard let base = data.baseAddress, data.count > 0 else { return }
        SHA256_Update(&context, base, data.count)
    }

    /// Adds a byte sequence, using its contiguous storage when it has one.
    @inlinable
    package mutating func update<Bytes: Sequence<UInt8>>(_ data: Bytes) {
        let done: Void? = data.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(data)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// Finishes the hash and returns the digest. The hasher itself is left unchanged.
    @inlinable
    package func finalize() -> SHA256Digest {
        var copy = context
        var digest = SHA256Digest()
        withUnsafeMutableBytes(of: &digest.storage) { raw in
            guard let base = raw.baseAddress else { return }
            _ = SHA256_Final(base.assumingMemoryBound(to: UInt8.self), &copy)
        }
        return digest
    }
}

extension SHA256Hasher {
    /// One-shot SHA-256 of the bytes in `data`.
    @inlinable
    package static func hash(_ data: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// One-shot SHA-256 of a byte collection (arrays, `Data`, string UTF-8 views).
    @inlinable
    package static func hash<Bytes: Sequence<UInt8>>(_ data: Bytes) -> SHA256Digest {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }
}

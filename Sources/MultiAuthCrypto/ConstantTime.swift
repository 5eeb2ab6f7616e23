import CLibCrypto

/// Comparisons whose running time does not depend on where the inputs differ.
package enum ConstantTime {
    /// True when both buffers hold the same bytes; uses OpenSSL's `CRYPTO_memcmp`.
    /// Buffers of different lengths are unequal (the length itself is not secret).
    package static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return CRYPTO_memcmp(left, right, lhs.count) == 0
    }

    /// True when both byte sequences are equal, compared in constant time.
    package static func equals<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ lhs: A, _ rhs: B) -> Bool {
        let left = Array(lhs)
        let right = Array(rhs)
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in equals(l, r) } }
    }

    /// True when both strings hold the same UTF-8 bytes, compared in constant time without copying them.
    package static func equals(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs, right = rhs
        return left.withUTF8 { l in right.withUTF8 { r in equals(UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(r)) } }
    }
}

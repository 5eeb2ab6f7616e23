import CLibCrypto

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
package enum SecureRandom {
    /// Returns `count` random bytes.
    /// - Throws: ``CryptoError/randomUnavailable`` when OpenSSL's generator fails.
    package static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let status = out.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { RAND_bytes($0, Int32(count)) } ?? 0
        }
        guard status == 1 else { throw .randomUnavailable }
        return out
    }
}

import CLibCrypto

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// Returns `count` random bytes.
    /// - Throws: ``CryptoError/randomUnavailable`` when OpenSSL's generator fails.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let status = out.withUnsafeMutableBytes { raw in
            RAND_bytes(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        guard status == 1 else { throw .randomUnavailable }
        return out
    }
}

import CLibCrypto

/// scrypt (RFC 7914) on OpenSSL's `EVP_PBE_scrypt`.
package enum Scrypt {
    /// scrypt cost parameters.
    package struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// log2 of the CPU/memory cost N.
        package var log2N: UInt8
        /// Block size r.
        package var r: UInt32
        /// Parallelism p.
        package var p: UInt32

        /// Creates parameters.
        package init(log2N: UInt8, r: UInt32, p: UInt32) {
            self.log2N = log2N
            self.r = r
            self.p = p
        }

        /// The memory scrypt needs: 128 · r · N bytes (plus a little for p).
        package var memoryBytes: UInt64 { 128 * UInt64(r) * (UInt64(1) << UInt64(log2N)) }

        package var description: String { "N=2^\(log2N), r=\(r), p=\(p)" }
    }

    /// Derives `length` bytes from `passphrase` and `salt`.
    /// - Throws: ``CryptoError/kdfFailure`` if OpenSSL rejects the parameters.
    package static func deriveKey(
        passphrase: [UInt8], salt: [UInt8], parameters: Parameters, length: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: length)
        let maxMemory = parameters.memoryBytes + 64 * 1024 * UInt64(parameters.p) + 1024 * 1024
        // A non-null pointer even for an empty passphrase; its length is what counts.
        let storage = passphrase.isEmpty ? [0] : passphrase
        let status = storage.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { saltBytes in
                key.withUnsafeMutableBufferPointer { out in
                    pass.withMemoryRebound(to: CChar.self) { passChars in
                        EVP_PBE_scrypt(
                            passChars.baseAddress, passphrase.count, saltBytes.baseAddress, salt.count,
                            UInt64(1) << UInt64(parameters.log2N), UInt64(parameters.r), UInt64(parameters.p),
                            maxMemory, out.baseAddress, length)
                    }
                }
            }
        }
        guard status == 1 else { throw .kdfFailure }
        return key
    }
}

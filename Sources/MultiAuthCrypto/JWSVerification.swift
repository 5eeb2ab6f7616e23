import CLibCrypto

/// Public keys that check JSON Web Signatures (RFC 7518): RS256 (RSASSA-PKCS1-v1_5 with
/// SHA-256), ES256 (ECDSA P-256 with SHA-256) and ES384 (ECDSA P-384 with SHA-384), the
/// ECDSA signatures as raw r ‖ s.
package enum JWSPublicKey: Sendable, Equatable {
    /// An RSA key from its modulus and public exponent (big-endian bytes).
    case rsa(modulus: [UInt8], exponent: [UInt8])
    /// A P-256 key from its affine coordinates (32 bytes each).
    case p256(x: [UInt8], y: [UInt8])
    /// A P-384 key from its affine coordinates (48 bytes each).
    case p384(x: [UInt8], y: [UInt8])

    /// True when `signature` is a valid signature of `message` under this key. Any malformed
    /// input (a wrong-size signature, a key off the curve) is simply not valid.
    package func isValidSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
        switch self {
        case .rsa(let modulus, let exponent): return Self.verifyRSA(signature, digest: SHA256Hasher.hash(message), modulus: modulus, exponent: exponent)
        case .p256(let x, let y):
            guard signature.count == 64, let der = Self.derSignature(r: Array(signature[0..<32]), s: Array(signature[32...])) else {
                return false
            }
            return P256SigningKey.verify(signature: der, digest: SHA256Hasher.hash(message), publicX: x, publicY: y)
        case .p384(let x, let y):
            guard signature.count == 96, let der = Self.derSignature(r: Array(signature[0..<48]), s: Array(signature[48...])) else {
                return false
            }
            let bytes = Array(message)
            var digest = [UInt8](repeating: 0, count: 48)
            guard SHA384(bytes, bytes.count, &digest) != nil else { return false }
            return ECDSAPublicKey.verify(signature: der, digest: digest, curve: NID_secp384r1, size: 48, publicX: x, publicY: y)
        }
    }

    private static func verifyRSA(_ signature: [UInt8], digest: SHA256Digest, modulus: [UInt8], exponent: [UInt8]) -> Bool {
        // 2048 bits is the smallest size RFC 7518 allows for RS256.
        guard modulus.drop(while: { $0 == 0 }).count >= 256, !exponent.isEmpty, exponent.count <= 8,
            let rsa = RSA_new()
        else { return false }
        defer { RSA_free(rsa) }
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else { return false }
        guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else {
            BN_free(n)
            return false
        }
        guard RSA_set0_key(rsa, n, e, nil) == 1 else {
            BN_free(n)
            BN_free(e)
            return false
        }
        return digest.withUnsafeBytes { raw in
            RSA_verify(NID_sha256, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), 32, signature, UInt32(signature.count), rsa)
        } == 1
    }

    /// A DER `ECDSA-Sig-Value` from the raw `r` and `s` that JWS and XML signatures carry.
    package static func derSignature(r: [UInt8], s: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let rNumber = BN_bin2bn(r, Int32(r.count), nil) else { return nil }
        guard let sNumber = BN_bin2bn(s, Int32(s.count), nil) else {
            BN_free(rNumber)
            return nil
        }
        guard ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}

import CLibCrypto

/// An ECDSA P-256 private key on OpenSSL (`EC_KEY`, `BIGNUM`), signing SHA-256 digests.
///
/// The key is immutable after creation, and OpenSSL's ECDSA signing only reads it, so one
/// instance serves concurrent signers. The private scalar is freed with `BN_clear_free`.
package final class P256SigningKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// The affine public-key coordinates, 32 bytes each, big-endian.
    package let publicKey: (x: [UInt8], y: [UInt8])

    /// Makes a key from a key-derivation candidate `k` (32 bytes, big-endian) the way AWS
    /// SigV4a does: when k ≤ n − 2 the private key is d = k + 1 (so 1 ≤ d ≤ n − 1);
    /// otherwise the candidate is rejected and `nil` tells the caller to try the next counter.
    /// - Throws: ``CryptoError/cipherFailure`` if OpenSSL fails.
    package static func fromCandidate(_ candidate: [UInt8]) throws(CryptoError) -> P256SigningKey? {
        guard candidate.count == 32 else { throw .invalidLength(expected: 32, actual: candidate.count) }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw .cipherFailure }
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group), let limit = BN_dup(order), let scalar = BN_secure_new() else {
            throw .cipherFailure
        }
        defer {
            BN_free(limit)
            BN_clear_free(scalar)
        }
        guard BN_sub_word(limit, 2) == 1, BN_bin2bn(candidate, 32, scalar) != nil else { throw .cipherFailure }
        guard BN_cmp(scalar, limit) <= 0 else { return nil }
        guard BN_add_word(scalar, 1) == 1 else { throw .cipherFailure }
        return try P256SigningKey(scalar: scalar, group: group)
    }

    private init(scalar: OpaquePointer, group: OpaquePointer) throws(CryptoError) {
        guard let key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1) else { throw .cipherFailure }
        guard let point = EC_POINT_new(group) else {
            EC_KEY_free(key)
            throw .cipherFailure
        }
        defer { EC_POINT_free(point) }
        guard EC_KEY_set_private_key(key, scalar) == 1, EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1,
            EC_KEY_set_public_key(key, point) == 1, let coordinates = Self.coordinates(of: point, in: group)
        else {
            EC_KEY_free(key)
            throw .cipherFailure
        }
        self.key = key
        self.publicKey = coordinates
    }

    deinit { EC_KEY_free(key) }

    /// A DER-encoded ECDSA signature of `digest` (randomized: two calls give different bytes).
    package func signature(for digest: SHA256Digest) throws(CryptoError) -> [UInt8] {
        var status: Int32 = 0
        // One allocation: OpenSSL writes into the array's storage, and the count is set to
        // the length it reports (at most ECDSA_size, the capacity).
        let signature = [UInt8](unsafeUninitializedCapacity: Int(ECDSA_size(key))) { buffer, count in
            var length: UInt32 = 0
            status = digest.withUnsafeBytes { raw in
                ECDSA_sign(0, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), 32, buffer.baseAddress, &length, key)
            }
            count = status == 1 ? min(Int(length), buffer.count) : 0
        }
        guard status == 1 else { throw .cipherFailure }
        return signature
    }

    /// True when `signature` (DER) is a valid ECDSA signature of `digest` under the public
    /// key (x, y), each 32 bytes big-endian.
    package static func verify(signature: [UInt8], digest: SHA256Digest, publicX: [UInt8], publicY: [UInt8]) -> Bool {
        ECDSAPublicKey.verify(signature: signature, digest: digest.bytes, curve: NID_X9_62_prime256v1, size: 32, publicX: publicX, publicY: publicY)
    }

    private static func coordinates(of point: OpaquePointer, in group: OpaquePointer) -> (x: [UInt8], y: [UInt8])? {
        guard let x = BN_new(), let y = BN_new() else { return nil }
        defer {
            BN_free(x)
            BN_free(y)
        }
        guard EC_POINT_get_affine_coordinates(group, point, x, y, nil) == 1 else { return nil }
        var xBytes = [UInt8](repeating: 0, count: 32)
        var yBytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(x, &xBytes, 32) == 32, BN_bn2binpad(y, &yBytes, 32) == 32 else { return nil }
        return (xBytes, yBytes)
    }
}

/// ECDSA signatures in the two encodings tokens and X.509 use.
package enum ECDSASignature {
    /// The raw `r || s` (each `size` bytes, big-endian) of a DER signature: JWS's form.
    package static func raw(der: [UInt8], size: Int) throws(CryptoError) -> [UInt8] {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw .cipherFailure }
        defer { ECDSA_SIG_free(decoded) }
        var out = [UInt8](repeating: 0, count: 2 * size)
        guard let r = ECDSA_SIG_get0_r(decoded), let s = ECDSA_SIG_get0_s(decoded) else { throw .cipherFailure }
        let written = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(size)) + BN_bn2binpad(s, buffer.baseAddress! + size, Int32(size))
        }
        guard written == 2 * size else { throw .cipherFailure }
        return out
    }

    /// The DER `SEQUENCE { r, s }` of a raw `r || s` signature (PKCS#11's `CKM_ECDSA`
    /// output: two big-endian halves of equal length).
    /// - Throws: ``CryptoError/invalidLength(expected:actual:)`` for an odd or empty input.
    package static func der(raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !raw.isEmpty, raw.count % 2 == 0 else { throw .invalidLength(expected: 64, actual: raw.count) }
        let half = Int32(raw.count / 2)
        guard let signature = ECDSA_SIG_new() else { throw .cipherFailure }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, half, nil) else { throw .cipherFailure }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + Int(half), half, nil) }) else {
            BN_free(r)
            throw .cipherFailure
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw .cipherFailure
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw .cipherFailure }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw .cipherFailure }
        return out
    }
}

/// ECDSA verification under a public key given by its affine coordinates, on any named curve.
enum ECDSAPublicKey {
    /// True when `signature` (DER) is a valid signature of `digest` under (x, y), each `size`
    /// bytes big-endian, on `curve` (an OpenSSL NID).
    static func verify(signature: [UInt8], digest: [UInt8], curve: Int32, size: Int, publicX: [UInt8], publicY: [UInt8]) -> Bool {
        guard publicX.count == size, publicY.count == size, let key = EC_KEY_new_by_curve_name(curve) else { return false }
        defer { EC_KEY_free(key) }
        guard let x = BN_bin2bn(publicX, Int32(size), nil), let y = BN_bin2bn(publicY, Int32(size), nil) else { return false }
        defer {
            BN_free(x)
            BN_free(y)
        }
        guard EC_KEY_set_public_key_affine_coordinates(key, x, y) == 1 else { return false }
        return ECDSA_verify(0, digest, Int32(digest.count), signature, Int32(signature.count), key) == 1
    }
}

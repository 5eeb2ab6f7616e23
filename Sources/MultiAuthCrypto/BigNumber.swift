import CLibCrypto

/// An arbitrary-precision non-negative integer on OpenSSL's BIGNUM, for SRP. The value is
/// cleared (`BN_clear_free`) when the number is released, since SRP exponents are secrets.
package final class BigNumber: @unchecked Sendable {
    // Never mutated after init; OpenSSL only reads it, so sharing across threads is safe.
    let raw: OpaquePointer

    private init(taking raw: OpaquePointer) { self.raw = raw }

    deinit { BN_clear_free(raw) }

    /// The number whose big-endian bytes are `bytes`.
    package convenience init(bytes: [UInt8]) throws(CryptoError) {
        guard let raw = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .cipherFailure }
        self.init(taking: raw)
    }

    /// The number written in hexadecimal (either case, no prefix).
    package convenience init(hex: String) throws(CryptoError) {
        var raw: OpaquePointer?
        let consumed = hex.withCString { BN_hex2bn(&raw, $0) }
        guard consumed == hex.utf8.count, consumed > 0, let raw else {
            if let raw { BN_free(raw) }
            throw .invalidHex
        }
        self.init(taking: raw)
    }

    /// A small number.
    package convenience init(_ value: UInt) throws(CryptoError) {
        guard let raw = BN_new(), BN_set_word(raw, value) == 1 else { throw .cipherFailure }
        self.init(taking: raw)
    }

    /// True for zero.
    package var isZero: Bool { BN_is_zero(raw) == 1 }

    /// The minimal big-endian bytes (empty for zero).
    package var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Int((BN_num_bits(raw) + 7) / 8))
        _ = BN_bn2bin(raw, &out)
        return out
    }

    /// The 3072-bit MODP group's prime of RFC 3526 (the same prime as RFC 5054's 3072-bit
    /// SRP group).
    package static func rfc3526Prime3072() throws(CryptoError) -> BigNumber {
        guard let raw = BN_get_rfc3526_prime_3072(nil) else { throw .cipherFailure }
        return BigNumber(taking: raw)
    }

    /// The big-endian bytes left-padded with zeros to `length`.
    package func bytes(paddedTo length: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(raw, &out, Int32(length)) == Int32(length) else { throw .invalidLength(expected: length, actual: bytes.count) }
        return out
    }

    /// Lowercase hexadecimal without leading zeros ("0" for zero).
    package var hex: String {
        let digits = bytes
        guard !digits.isEmpty else { return "0" }
        let text = Hex.encode(digits)
        return text.hasPrefix("0") ? String(text.dropFirst()) : text
    }

    /// `self` mod `modulus`.
    package func mod(_ modulus: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, context in BN_nnmod(result, raw, modulus.raw, context) }
    }

    /// `self`^`exponent` mod `modulus`, in constant time (the exponent may be secret).
    package func power(_ exponent: BigNumber, modulo modulus: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, context in BN_mod_exp_mont_consttime(result, raw, exponent.raw, modulus.raw, context, nil) }
    }

    /// (`self` × `other`) mod `modulus`.
    package func multiply(_ other: BigNumber, modulo modulus: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, context in BN_mod_mul(result, raw, other.raw, modulus.raw, context) }
    }

    /// (`self` − `other`) mod `modulus`, never negative.
    package func subtract(_ other: BigNumber, modulo modulus: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, context in BN_mod_sub(result, raw, other.raw, modulus.raw, context) }
    }

    /// `self` + `other`.
    package func adding(_ other: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, _ in BN_add(result, raw, other.raw) }
    }

    /// `self` × `other`.
    package func multiplying(_ other: BigNumber) throws(CryptoError) -> BigNumber {
        try Self.compute { result, context in BN_mul(result, raw, other.raw, context) }
    }

    private static func compute(_ body: (OpaquePointer, OpaquePointer) -> Int32) throws(CryptoError) -> BigNumber {
        guard let context = BN_CTX_secure_new() ?? BN_CTX_new() else { throw .cipherFailure }
        defer { BN_CTX_free(context) }
        guard let result = BN_new() else { throw .cipherFailure }
        guard body(result, context) == 1 else {
            BN_clear_free(result)
            throw .cipherFailure
        }
        return BigNumber(taking: result)
    }
}

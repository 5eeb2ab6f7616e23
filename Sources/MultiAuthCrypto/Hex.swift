/// Lowercase hexadecimal encoding and decoding on bytes.
package enum Hex {
    /// Writes the lowercase hex form of `bytes`, two digits per byte, at `target`, which must
    /// have room for `2 * bytes.count` bytes. Each whole 16 bytes (a SHA-256 digest is two) go
    /// through SIMD lanes; the rest byte by byte.
    @inlinable
    package static func write(_ bytes: UnsafeRawBufferPointer, to target: UnsafeMutablePointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        var index = 0
        #if _endian(little)
        while index + 16 <= bytes.count {
            write16(source + index, to: UnsafeMutableRawPointer(target + 2 * index))
            index += 16
        }
        #endif
        while index < bytes.count {
            let byte = source.load(fromByteOffset: index, as: UInt8.self)
            target[2 * index] = digit(byte >> 4)
            target[2 * index + 1] = digit(byte & 0x0f)
            index += 1
        }
    }

    /// The hex digits of 16 bytes at once. Each byte widens to a 16-bit lane holding its high
    /// nibble in the low byte and its low nibble in the high byte, which on a little-endian
    /// machine is the order the two digits go in memory. Adding 6 carries into bit 4 exactly
    /// for nibbles 10–15, which then get the 39 that takes `'0' + 10` to `'a'`.
    @inlinable @inline(__always)
    static func write16(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer) {
        let wide = SIMD16<UInt16>(truncatingIfNeeded: source.loadUnaligned(as: SIMD16<UInt8>.self))
        let nibbles = (wide &>> 4) | ((wide & 0x0f) &<< 8)
        let letters = ((nibbles &+ 0x0606) &>> 4) & 0x0101
        target.storeBytes(of: nibbles &+ 0x3030 &+ letters &* 39, as: SIMD16<UInt16>.self)
    }

    /// The lowercase hex digit of a nibble (0–15): `'0' + n`, plus 39 when n > 9.
    @inlinable @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ 48 : nibble &+ 87
    }

    /// Appends the lowercase hex form of `bytes` to `output`.
    package static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: 2 * bytes.count))
        output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            write(bytes, to: base + start)
        }
    }

    /// Returns the lowercase hex form of `bytes`.
    package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns the lowercase hex form of a byte sequence.
    package static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Decodes hexadecimal text (either case).
    /// - Throws: ``CryptoError/invalidHex`` for an odd length or a non-hex character.
    package static func decode(_ text: String) throws(CryptoError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { throw .invalidHex }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else {
                throw .invalidHex
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

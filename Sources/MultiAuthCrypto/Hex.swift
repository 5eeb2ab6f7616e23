/// Lowercase hexadecimal encoding and decoding on bytes.
public enum Hex {
    /// The sixteen lowercase hex digits as ASCII bytes.
    public static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the lowercase hex form of `bytes` to `output`.
    public static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count * 2) { out in
            lowercaseDigits.withUnsafeBufferPointer { table in
                var index = 0
                for byte in bytes {
                    out[index] = table[Int(byte >> 4)]
                    out[index + 1] = table[Int(byte & 0x0f)]
                    index += 2
                }
            }
            output.append(contentsOf: out)
        }
    }

    /// Returns the lowercase hex form of `bytes`.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns the lowercase hex form of a byte sequence.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Decodes hexadecimal text (either case).
    /// - Throws: ``CryptoError/invalidHex`` for an odd length or a non-hex character.
    public static func decode(_ text: String) throws(CryptoError) -> [UInt8] {
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

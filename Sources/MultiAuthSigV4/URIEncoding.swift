/// RFC 3986 percent-encoding as SigV4 defines it: every byte except the unreserved
/// characters `A-Z a-z 0-9 - _ . ~` becomes `%XX` with uppercase hex.
enum URIEncoding {
    /// Whether `byte` is unreserved, from a 128-bit set (bit n set for byte n): constants in
    /// the code rather than a table behind a lazily initialized global.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        // Bits 45-46 `-.`, 48-57 digits; then 65-90 `A-Z`, 95 `_`, 97-122 `a-z`, 126 `~`.
        let word: UInt64 = byte < 64 ? 0x03ff_6000_0000_0000 : byte < 128 ? 0x47ff_fffe_87ff_fffe : 0
        return word >> UInt64(byte & 63) & 1 == 1
    }

    /// Writes `bytes` encoded into fixed storage; `/` is kept when `keepSlash` is true.
    static func write(
        encoding bytes: UnsafeBufferPointer<UInt8>, keepSlash: Bool, to output: inout ByteWriter
    ) {
        var index = 0
        while index < bytes.count {
            let start = index
            while index < bytes.count, isUnreserved(bytes[index]) || (keepSlash && bytes[index] == UInt8(ascii: "/")) {
                index += 1
            }
            if index > start { output.write(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
            if index < bytes.count {
                writeEscaped(bytes[index], to: &output)
                index += 1
            }
        }
    }

    @inline(__always)
    static func writeEscaped(_ byte: UInt8, to writer: inout ByteWriter) {
        writer.write(UInt8(ascii: "%"))
        writer.write(ASCII.upperHexDigit(byte >> 4))
        writer.write(ASCII.upperHexDigit(byte & 0x0f))
    }

    /// Percent-decodes `bytes` as ``PercentDecoding`` does (`+` stays a plus) and writes the
    /// canonical re-encoding in one pass. Runs of unreserved bytes, which decode and encode
    /// to themselves, are copied whole.
    static func writeCanonicalQueryComponent(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        var index = 0
        while index < bytes.count {
            let start = index
            while index < bytes.count, isUnreserved(bytes[index]) { index += 1 }
            if index > start { output.write(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
            guard index < bytes.count else { return }
            let (byte, width) = PercentDecoding.byte(at: index, in: bytes)
            index += width
            if isUnreserved(byte) {
                output.write(byte)
            } else {
                writeEscaped(byte, to: &output)
            }
        }
    }

    @inline(__always)
    static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character &- UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character &- UInt8(ascii: "A") &+ 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character &- UInt8(ascii: "a") &+ 10
        default: nil
        }
    }
}

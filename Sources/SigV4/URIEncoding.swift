/// RFC 3986 percent-encoding as SigV4 defines it: every byte except the unreserved
/// characters `A-Z a-z 0-9 - _ . ~` becomes `%XX` with uppercase hex.
enum URIEncoding {
    static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    static let unreserved: [Bool] = (0..<256).map { value in
        switch UInt8(value) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool { unreserved[Int(byte)] }

    /// Appends `byte` as `%XX`.
    @inline(__always)
    static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(upperHex[Int(byte >> 4)])
        output.append(upperHex[Int(byte & 0x0f)])
    }

    /// Appends `bytes` encoded; `/` is kept when `keepSlash` is true (paths), encoded otherwise.
    static func append(
        encoding bytes: UnsafeBufferPointer<UInt8>, keepSlash: Bool, to output: inout [UInt8]
    ) {
        var index = 0
        while index < bytes.count {
            let start = index
            while index < bytes.count, isUnreserved(bytes[index]) || (keepSlash && bytes[index] == UInt8(ascii: "/")) {
                index += 1
            }
            if index > start { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
            if index < bytes.count {
                appendEscaped(bytes[index], to: &output)
                index += 1
            }
        }
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

    /// Appends the text encoded (`/` encoded too).
    static func append(encoding text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(encoding: $0, keepSlash: false, to: &output) }
    }

    @inline(__always)
    static func writeEscaped(_ byte: UInt8, to writer: inout ByteWriter) {
        writer.write(UInt8(ascii: "%"))
        writer.write(upperHex[Int(byte >> 4)])
        writer.write(upperHex[Int(byte & 0x0f)])
    }

    /// Percent-decodes `bytes` as ``PercentDecoding`` does (`+` stays a plus) and writes the
    /// canonical re-encoding in one pass.
    static func writeCanonicalQueryComponent(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        var index = 0
        while index < bytes.count {
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

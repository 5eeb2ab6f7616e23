/// Writes bytes into fixed storage whose size is known up front: a string being created
/// with `String(unsafeUninitializedCapacity:)` or a stack buffer. Writing past the end is
/// a programming error and traps.
struct ByteWriter {
    let storage: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ storage: UnsafeMutableBufferPointer<UInt8>) { self.storage = storage }

    mutating func write(_ byte: UInt8) {
        precondition(count < storage.count, "ByteWriter overflow")
        storage[count] = byte
        count += 1
    }

    /// Writes `bytes` as lowercase hex digits, two per byte, after one bounds check. Each
    /// whole 16 bytes (a SHA-256 digest is two) go through SIMD lanes; the rest byte by byte.
    mutating func writeHex(_ bytes: UnsafeRawBufferPointer) {
        precondition(count + 2 * bytes.count <= storage.count, "ByteWriter overflow")
        guard let target = storage.baseAddress.map({ $0 + count }), let source = bytes.baseAddress else { return }
        var index = 0
        #if _endian(little)
        while index + 16 <= bytes.count {
            Self.writeHex16(source + index, to: UnsafeMutableRawPointer(target + 2 * index))
            index += 16
        }
        #endif
        while index < bytes.count {
            let byte = source.load(fromByteOffset: index, as: UInt8.self)
            target[2 * index] = ASCII.hexDigit(byte >> 4, uppercase: false)
            target[2 * index + 1] = ASCII.hexDigit(byte & 0x0f, uppercase: false)
            index += 1
        }
        count += 2 * bytes.count
    }

    /// The hex digits of 16 bytes at once. Each byte widens to a 16-bit lane holding its high
    /// nibble in the low byte and its low nibble in the high byte, which on a little-endian
    /// machine is the order the two digits go in memory. Adding 6 carries into bit 4 exactly
    /// for nibbles 10–15, which then get the 39 that takes `'0' + 10` to `'a'`.
    @inline(__always)
    private static func writeHex16(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer) {
        let wide = SIMD16<UInt16>(truncatingIfNeeded: source.loadUnaligned(as: SIMD16<UInt8>.self))
        let nibbles = (wide &>> 4) | ((wide & 0x0f) &<< 8)
        let letters = ((nibbles &+ 0x0606) &>> 4) & 0x0101
        target.storeBytes(of: nibbles &+ 0x3030 &+ letters &* 39, as: SIMD16<UInt16>.self)
    }

    /// Writes a non-negative integer in decimal.
    mutating func writeDecimal(_ value: Int) {
        precondition(value >= 0, "ByteWriter.writeDecimal of a negative value")
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        precondition(count + digits <= storage.count, "ByteWriter overflow")
        rest = value
        for position in stride(from: count + digits - 1, through: count, by: -1) {
            storage[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
    }

    /// Writes `bytes` with ASCII letters lowercased.
    mutating func writeLowercased(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= storage.count, "ByteWriter overflow")
        guard let target = storage.baseAddress else { return }
        for byte in bytes {
            target[count] = ASCII.lowercase(byte)
            count += 1
        }
    }

    /// Forgets what was written after `position` (the next write goes there).
    mutating func rewind(to position: Int) {
        precondition(position >= 0 && position <= count, "ByteWriter rewind out of range")
        count = position
    }

    mutating func write(_ literal: StaticString) {
        write(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, let target = storage.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= storage.count, "ByteWriter overflow")
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    mutating func write(_ text: String) {
        text.withUTF8InPlace { write($0) }
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[..<count]) }

    /// Makes a string of exactly `capacity` bytes or fewer with `body` writing them.
    static func string(capacity: Int, _ body: (inout ByteWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ByteWriter(buffer)
            body(&writer)
            return writer.count
        }
    }
}

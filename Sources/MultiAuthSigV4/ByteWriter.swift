import MultiAuthCrypto

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

    /// Writes `bytes` as lowercase hex digits, two per byte, after one bounds check.
    mutating func writeHex(_ bytes: UnsafeRawBufferPointer) {
        precondition(count + 2 * bytes.count <= storage.count, "ByteWriter overflow")
        guard let target = storage.baseAddress.map({ $0 + count }) else { return }
        Hex.write(bytes, to: target)
        count += 2 * bytes.count
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

    /// Makes an array of at most `capacity` bytes with `body` writing them. They are written
    /// into a temporary buffer and copied once: `[UInt8](unsafeUninitializedCapacity:)` is not
    /// specialized in the standard library, and looks up the array's storage type in the
    /// runtime's metadata cache on every call (about 40 ns, more than the copy).
    @inline(__always)
    static func bytes(capacity: Int, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { buffer in
            var writer = ByteWriter(buffer)
            body(&writer)
            return Array(writer.written)
        }
    }

    /// Makes a string of exactly `capacity` bytes or fewer with `body` writing them.
    static func string(capacity: Int, _ body: (inout ByteWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ByteWriter(buffer)
            body(&writer)
            return writer.count
        }
    }
}

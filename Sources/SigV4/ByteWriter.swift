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

    /// Writes `byte` as two lowercase hex digits.
    @inline(__always)
    mutating func writeHex(_ byte: UInt8) {
        let high = byte >> 4
        let low = byte & 0x0f
        write(high &+ (high < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10))
        write(low &+ (low < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10))
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
        var text = text
        text.withUTF8 { write($0) }
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

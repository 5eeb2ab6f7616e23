/// Equality of byte buffers, on pointers: the generic `elementsEqual` on array slices costs
/// several times more on the verifier's path. It stops at the first difference, so it is for
/// public values (names, scopes); signatures go through `ConstantTime.equals`.
enum ByteComparison {
    /// True when both hold the same bytes (ASCII letters in either case with `ignoringCase`).
    static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>, ignoringCase: Bool = false) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where lhs[index] != rhs[index] {
            guard ignoringCase, ASCII.lowercase(lhs[index]) == ASCII.lowercase(rhs[index]) else { return false }
        }
        return true
    }

    /// True when `lhs` holds the literal's UTF-8 bytes (ASCII letters in either case with `ignoringCase`).
    static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ literal: StaticString, ignoringCase: Bool = false) -> Bool {
        equal(lhs, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), ignoringCase: ignoringCase)
    }
}

extension ByteComparison {
    /// Byte-wise three-way comparison of two ranges of `buffer`: negative, zero or positive.
    static func compare(_ buffer: UnsafeBufferPointer<UInt8>, _ lhs: Range<Int>, _ rhs: Range<Int>) -> Int {
        compare(buffer, lhs, buffer, rhs)
    }

    /// Byte-wise three-way comparison of a range of one buffer with a range of another.
    @inline(__always)
    static func compare(
        _ lhsBuffer: UnsafeBufferPointer<UInt8>, _ lhs: Range<Int>, _ rhsBuffer: UnsafeBufferPointer<UInt8>, _ rhs: Range<Int>
    ) -> Int {
        let common = min(lhs.count, rhs.count)
        for offset in 0..<common {
            let left = lhsBuffer[lhs.lowerBound + offset]
            let right = rhsBuffer[rhs.lowerBound + offset]
            if left != right { return left < right ? -1 : 1 }
        }
        return lhs.count - rhs.count
    }
}

/// Stage 1c: the canonical query string.
///
/// Each `key[=value]` pair of the wire query is percent-decoded and re-encoded with
/// SigV4's unreserved set, then pairs are sorted by key and, for repeated keys, by value,
/// comparing encoded bytes. A key without `=` has an empty value. The work happens in
/// temporary storage sized from the input, so a typical query costs no heap allocation.
enum CanonicalQuery {
    private typealias Pair = (key: Range<Int>, value: Range<Int>)

    /// The most bytes ``write(wireQuery:extra:to:)`` writes.
    static func capacity(wireQueryCount: Int, extraCount: Int) -> Int {
        // Every wire byte re-encodes to at most three, and each pair adds `=` and `&`.
        5 * wireQueryCount + extraCount + 2
    }

    /// Writes the canonical form of `wire` (a wire query without `?`) together with `extra`,
    /// more pairs already in canonical form and sorted (the `X-Amz-*` parameters of a presigned
    /// URL, which the signer writes in order and encodes as this stage would). Only the wire
    /// pairs are sorted; `extra` is merged in where it belongs, read where it lies.
    static func write(wireQuery wire: UnsafeBufferPointer<UInt8>, extra: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        if wire.isEmpty {
            output.write(extra)
            return
        }
        let pairCapacity = wire.count(where: { $0 == UInt8(ascii: "&") }) + 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * wire.count) { scratch in
            withUnsafeTemporaryAllocation(of: Pair.self, capacity: pairCapacity) { pairs in
                var writer = ByteWriter(scratch)
                var count = 0
                forEachWirePair(wire) { pair in
                    pairs.initializeElement(at: count, to: canonicalPair(pair, into: &writer))
                    count += 1
                }
                var filled = UnsafeMutableBufferPointer(rebasing: pairs[..<count])
                let encoded = writer.written
                filled.sort { lhs, rhs in order(encoded, lhs, encoded, rhs) < 0 }
                merge(UnsafeBufferPointer(filled), encoded, withCanonical: extra, to: &output)
                _ = filled.deinitialize()
            }
        }
    }

    private static func forEachWirePair(_ wire: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for index in 0...wire.count where index == wire.count || wire[index] == UInt8(ascii: "&") {
            if index > start { body(UnsafeBufferPointer(rebasing: wire[start..<index])) }
            start = index + 1
        }
    }

    /// A `key=value` pair already in canonical form, as ranges of `pair`'s base.
    private static func split(_ pair: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Pair {
        let equals = ByteSearch.firstIndex(of: UInt8(ascii: "="), in: bytes, pair) ?? pair.upperBound
        return (pair.lowerBound..<equals, min(equals + 1, pair.upperBound)..<pair.upperBound)
    }

    private static func canonicalPair(_ pair: UnsafeBufferPointer<UInt8>, into writer: inout ByteWriter) -> Pair {
        let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
        let keyStart = writer.count
        URIEncoding.writeCanonicalQueryComponent(UnsafeBufferPointer(rebasing: pair[..<equals]), to: &writer)
        let valueStart = writer.count
        if equals < pair.count {
            URIEncoding.writeCanonicalQueryComponent(UnsafeBufferPointer(rebasing: pair[(equals + 1)...]), to: &writer)
        }
        return (keyStart..<valueStart, valueStart..<writer.count)
    }

    /// Orders two pairs by key, then by value, comparing encoded bytes.
    @inline(__always)
    private static func order(_ lhsBytes: UnsafeBufferPointer<UInt8>, _ lhs: Pair, _ rhsBytes: UnsafeBufferPointer<UInt8>, _ rhs: Pair) -> Int {
        let byKey = ByteComparison.compare(lhsBytes, lhs.key, rhsBytes, rhs.key)
        return byKey != 0 ? byKey : ByteComparison.compare(lhsBytes, lhs.value, rhsBytes, rhs.value)
    }

    /// Writes the sorted wire pairs and the canonical `extra` pairs in one sorted sequence.
    /// (Static helpers rather than nested functions: capturing the writer would cost an
    /// exclusivity check per call.)
    private static func merge(
        _ pairs: UnsafeBufferPointer<Pair>, _ encoded: UnsafeBufferPointer<UInt8>, withCanonical extra: UnsafeBufferPointer<UInt8>,
        to output: inout ByteWriter
    ) {
        var pending = extraPair(in: extra, from: 0)
        var index = 0
        var first = true
        while pending != nil || index < pairs.count {
            if let next = pending, index == pairs.count || order(extra, next, encoded, pairs[index]) < 0 {
                writePair(extra, next, first: &first, to: &output)
                pending = extraPair(in: extra, from: next.value.upperBound + 1)
            } else {
                writePair(encoded, pairs[index], first: &first, to: &output)
                index += 1
            }
        }
    }

    /// The `extra` pair starting at `start`, if any.
    private static func extraPair(in extra: UnsafeBufferPointer<UInt8>, from start: Int) -> Pair? {
        guard start < extra.count else { return nil }
        let end = ByteSearch.firstIndex(of: UInt8(ascii: "&"), in: extra, start..<extra.count) ?? extra.count
        return split(start..<end, in: extra)
    }

    /// Writes `key=value`, after a `&` unless it is the first pair.
    private static func writePair(_ bytes: UnsafeBufferPointer<UInt8>, _ pair: Pair, first: inout Bool, to output: inout ByteWriter) {
        if !first { output.write(UInt8(ascii: "&")) }
        first = false
        output.write(UnsafeBufferPointer(rebasing: bytes[pair.key]))
        output.write(UInt8(ascii: "="))
        output.write(UnsafeBufferPointer(rebasing: bytes[pair.value]))
    }
}

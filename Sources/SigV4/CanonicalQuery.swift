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
        // Every byte re-encodes to at most three, and each pair adds `=` and `&`.
        5 * (wireQueryCount + extraCount) + 2
    }

    /// Writes the canonical form of `wire` (a wire query without `?`) together with `extra`,
    /// more pairs already in canonical form (the `X-Amz-*` parameters of a presigned URL, which
    /// the signer encodes as this stage would), copied without decoding them again.
    static func write(wireQuery wire: UnsafeBufferPointer<UInt8>, extra: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        if wire.isEmpty && extra.isEmpty { return }
        let pairCapacity = wire.count(where: { $0 == UInt8(ascii: "&") }) + extra.count(where: { $0 == UInt8(ascii: "&") }) + 2
        let scratchCapacity = 3 * (wire.count + extra.count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(scratchCapacity, 1)) { scratch in
            withUnsafeTemporaryAllocation(of: Pair.self, capacity: pairCapacity) { pairs in
                var writer = ByteWriter(scratch)
                var count = 0
                for (part, isCanonical) in [(wire, false), (extra, true)] {
                    forEachWirePair(part) { pair in
                        pairs.initializeElement(at: count, to: canonicalPair(pair, alreadyCanonical: isCanonical, into: &writer))
                        count += 1
                    }
                }
                let filled = UnsafeMutableBufferPointer(rebasing: pairs[..<count])
                appendSorted(filled, scratch: writer.written, to: &output)
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

    private static func canonicalPair(_ pair: UnsafeBufferPointer<UInt8>, alreadyCanonical: Bool, into writer: inout ByteWriter) -> Pair {
        let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
        func component(_ bytes: UnsafeBufferPointer<UInt8>) {
            if alreadyCanonical { writer.write(bytes) } else { URIEncoding.writeCanonicalQueryComponent(bytes, to: &writer) }
        }
        let keyStart = writer.count
        component(UnsafeBufferPointer(rebasing: pair[..<equals]))
        let valueStart = writer.count
        if equals < pair.count { component(UnsafeBufferPointer(rebasing: pair[(equals + 1)...])) }
        return (keyStart..<valueStart, valueStart..<writer.count)
    }

    private static func appendSorted(
        _ pairs: UnsafeMutableBufferPointer<Pair>, scratch: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter
    ) {
        var pairs = pairs
        pairs.sort { lhs, rhs in
            let byKey = ByteComparison.compare(scratch, lhs.key, rhs.key)
            return byKey != 0 ? byKey < 0 : ByteComparison.compare(scratch, lhs.value, rhs.value) < 0
        }
        for (position, pair) in pairs.enumerated() {
            if position > 0 { output.write(UInt8(ascii: "&")) }
            output.write(UnsafeBufferPointer(rebasing: scratch[pair.key]))
            output.write(UInt8(ascii: "="))
            output.write(UnsafeBufferPointer(rebasing: scratch[pair.value]))
        }
    }
}

/// Stage 1c: the canonical query string.
///
/// Each `key[=value]` pair of the wire query is percent-decoded and re-encoded with
/// SigV4's unreserved set, then pairs are sorted by key and, for repeated keys, by value,
/// comparing encoded bytes. A key without `=` has an empty value.
struct CanonicalQuery {
    private var scratch: [UInt8] = []
    private var pairs: [(key: Range<Int>, value: Range<Int>)] = []

    /// Adds every pair of a raw wire query.
    mutating func add(wireQuery: String) {
        guard !wireQuery.isEmpty else { return }
        scratch.reserveCapacity(wireQuery.utf8.count + 64)
        pairs.reserveCapacity(8)
        var query = wireQuery
        query.withUTF8 { bytes in
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "&") {
                if index > start { addWirePair(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                start = index + 1
            }
        }
    }

    private mutating func addWirePair(_ pair: UnsafeBufferPointer<UInt8>) {
        let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
        let keyStart = scratch.count
        URIEncoding.appendCanonicalQueryComponent(UnsafeBufferPointer(rebasing: pair[..<equals]), to: &scratch)
        let valueStart = scratch.count
        if equals < pair.count {
            URIEncoding.appendCanonicalQueryComponent(
                UnsafeBufferPointer(rebasing: pair[(equals + 1)...]), to: &scratch)
        }
        pairs.append((keyStart..<valueStart, valueStart..<scratch.count))
    }

    /// Adds a pair given as plain (unencoded) text, such as the `X-Amz-*` auth parameters.
    mutating func add(key: String, plainValue: String) {
        let keyStart = scratch.count
        URIEncoding.append(encoding: key, to: &scratch)
        let valueStart = scratch.count
        URIEncoding.append(encoding: plainValue, to: &scratch)
        pairs.append((keyStart..<valueStart, valueStart..<scratch.count))
    }

    /// Sorts the pairs and appends `k=v&k=v…` to `output`.
    mutating func appendSorted(to output: inout [UInt8]) {
        scratch.withUnsafeBufferPointer { buffer in
            pairs.sort { lhs, rhs in
                let byKey = Self.compare(buffer, lhs.key, rhs.key)
                return byKey != 0 ? byKey < 0 : Self.compare(buffer, lhs.value, rhs.value) < 0
            }
            for (position, pair) in pairs.enumerated() {
                if position > 0 { output.append(UInt8(ascii: "&")) }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[pair.key]))
                output.append(UInt8(ascii: "="))
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[pair.value]))
            }
        }
    }

    /// Byte-wise three-way comparison of two ranges of `buffer`.
    private static func compare(_ buffer: UnsafeBufferPointer<UInt8>, _ lhs: Range<Int>, _ rhs: Range<Int>) -> Int {
        let common = min(lhs.count, rhs.count)
        for offset in 0..<common {
            let left = buffer[lhs.lowerBound + offset]
            let right = buffer[rhs.lowerBound + offset]
            if left != right { return left < right ? -1 : 1 }
        }
        return lhs.count - rhs.count
    }
}

/// Percent-decoding as AWS reads query strings: `%XX` with two hex digits is one byte, a `%`
/// without them is a literal `%`, and `+` stays a plus.
enum PercentDecoding {
    /// The decoded byte at `index` and how many encoded bytes it took (1 or 3).
    @inline(__always)
    static func byte(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (value: UInt8, width: Int) {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
            let high = URIEncoding.hexValue(bytes[index + 1]), let low = URIEncoding.hexValue(bytes[index + 2])
        {
            return (high << 4 | low, 3)
        }
        return (bytes[index], 1)
    }

    /// Appends the decoded form of `encoded` to `output`.
    static func append(_ encoded: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var index = 0
        while index < encoded.count {
            // Runs without `%` are copied whole.
            let escape = ByteSearch.firstIndex(of: UInt8(ascii: "%"), in: encoded, index..<encoded.count) ?? encoded.count
            output.append(contentsOf: UnsafeBufferPointer(rebasing: encoded[index..<escape]))
            guard escape < encoded.count else { return }
            let decoded = byte(at: escape, in: encoded)
            output.append(decoded.value)
            index = escape + decoded.width
        }
    }

    /// True when `encoded`, decoded, is exactly the literal's bytes; decodes without copying.
    static func decodedEquals(_ encoded: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        var index = 0, matched = 0
        while index < encoded.count {
            let decoded = byte(at: index, in: encoded)
            guard matched < expected.count, decoded.value == expected[matched] else { return false }
            matched += 1
            index += decoded.width
        }
        return matched == expected.count
    }
}

/// Stage 1d–1e: canonical headers and the signed-headers list.
///
/// Names are lowercased and sorted; values are trimmed and inner whitespace runs
/// (including folded line breaks and tabs) collapse to one space; repeated names are
/// joined with `,` in the order received, never sorted or de-duplicated. Each field is
/// copied once, already canonical, into storage sized up front, and sorted there as byte
/// ranges: no string or array is made per field.
struct CanonicalHeaders {
    /// The fields the signer writes itself for one signature; any the request has are dropped.
    struct ReplacedFields: OptionSet {
        let rawValue: UInt8
        static let amzDate = ReplacedFields(rawValue: 1)
        static let securityToken = ReplacedFields(rawValue: 2)
        static let regionSet = ReplacedFields(rawValue: 4)
    }

    /// One field in `storage`: its lowercased name, its canonical value and where it came.
    private struct Entry {
        var name: Range<Int>
        var value: Range<Int>
        var position: Int
    }

    private var storage: ByteWriter
    private let entries: UnsafeMutableBufferPointer<Entry>
    private let replaced: ReplacedFields
    private(set) var count = 0
    private var nameBytes = 0
    /// True when a `host` field was added.
    private(set) var hasHost = false

    private init(storage: ByteWriter, entries: UnsafeMutableBufferPointer<Entry>, replaced: ReplacedFields) {
        self.storage = storage
        self.entries = entries
        self.replaced = replaced
    }

    /// Runs `body` with empty canonical headers that can hold `fields` fields of `bytes`
    /// name and value bytes in all. The storage is temporary (on the stack when small) and
    /// must not escape `body`.
    static func withStorage<Result, Failure: Error>(
        fields: Int, bytes: Int, replacing replaced: ReplacedFields,
        _ body: (inout CanonicalHeaders) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes, 1)) { (bytes) throws(Failure) -> Result in
            try withUnsafeTemporaryAllocation(of: Entry.self, capacity: max(fields, 1)) { (entries) throws(Failure) -> Result in
                var headers = CanonicalHeaders(storage: ByteWriter(bytes), entries: entries, replaced: replaced)
                return try body(&headers)
            }
        }
    }

    /// Headers that are never signed: proxies and clients add or change them in flight (W3C
    /// trace context included: each hop of a trace rewrites `traceparent`).
    private static func isNeverSigned(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 6: ByteComparison.equal(name, "expect")
        case 10: ByteComparison.equal(name, "user-agent") || ByteComparison.equal(name, "connection") || ByteComparison.equal(name, "tracestate")
        case 11: ByteComparison.equal(name, "traceparent")
        case 13: ByteComparison.equal(name, "authorization")
        case 15: ByteComparison.equal(name, "x-amzn-trace-id")
        default: false
        }
    }

    private func isReplaced(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 10: replaced.contains(.amzDate) && ByteComparison.equal(name, "x-amz-date")
        case 16: replaced.contains(.regionSet) && ByteComparison.equal(name, "x-amz-region-set")
        case 20: replaced.contains(.securityToken) && ByteComparison.equal(name, "x-amz-security-token")
        default: false
        }
    }

    /// Adds every field of `source` that is signed and not replaced, leaving `reserved` bytes
    /// of the storage for the signer's fields; false when they do not all fit (then the headers
    /// are incomplete and must not be used).
    mutating func add(_ source: some HeaderFieldSource, leaving reserved: Int) -> Bool {
        let limit = storage.storage.count - reserved
        var fits = true
        source.forEachField { name, value in
            // A field takes at most its name and value bytes: lowercasing keeps the length and
            // trimming only shortens.
            guard fits, count < entries.count, storage.count + name.count + value.count <= limit else {
                fits = false
                return
            }
            add(name: name, value: value, fromRequest: true)
        }
        return fits
    }

    /// Adds a field the signer writes (`name` lowercase, signed, never replaced).
    mutating func add(signerField name: StaticString, value: String) {
        let nameStart = storage.count
        storage.write(name)
        value.withUTF8InPlace { append(nameStart: nameStart, nameCount: name.utf8CodeUnitCount, value: $0) }
    }

    private mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, fromRequest: Bool) {
        let nameStart = storage.count
        storage.writeLowercased(name)
        let lowercased = UnsafeBufferPointer(rebasing: storage.written[nameStart...])
        if Self.isNeverSigned(lowercased) || (fromRequest && isReplaced(lowercased)) {
            storage.rewind(to: nameStart)
            return
        }
        if name.count == 4, ByteComparison.equal(lowercased, "host") { hasHost = true }
        append(nameStart: nameStart, nameCount: name.count, value: value)
    }

    /// Records the field whose name was just written at `nameStart`, writing its value.
    private mutating func append(nameStart: Int, nameCount: Int, value: UnsafeBufferPointer<UInt8>) {
        let valueStart = storage.count
        Self.writeTrimmed(value, to: &storage)
        entries.initializeElement(at: count, to: Entry(name: nameStart..<valueStart, value: valueStart..<storage.count, position: count))
        count += 1
        nameBytes += nameCount
    }

    /// Sorts by name, keeping the received order of repeated names. Call once, after adding.
    mutating func sort() {
        let bytes = storage.written
        var sorted = UnsafeMutableBufferPointer(rebasing: entries[..<count])
        sorted.sort { lhs, rhs in
            let order = ByteComparison.compare(bytes, lhs.name, rhs.name)
            return order != 0 ? order < 0 : lhs.position < rhs.position
        }
    }

    /// The most bytes ``writeBlock(to:)`` writes.
    var blockCapacity: Int { storage.count + 2 * count }
    /// The most bytes ``writeSignedHeaders(to:)`` writes.
    var signedHeadersCapacity: Int { nameBytes + count }

    /// Writes the canonical header block, each `name:value\n` (after ``sort()``).
    func writeBlock(to output: inout ByteWriter) {
        let bytes = storage.written
        var previous: Range<Int>?
        for entry in UnsafeBufferPointer(rebasing: entries[..<count]) {
            if let previous, ByteComparison.compare(bytes, previous, entry.name) == 0 {
                output.write(UInt8(ascii: ","))
            } else {
                if previous != nil { output.write(UInt8(ascii: "\n")) }
                output.write(UnsafeBufferPointer(rebasing: bytes[entry.name]))
                output.write(UInt8(ascii: ":"))
                previous = entry.name
            }
            output.write(UnsafeBufferPointer(rebasing: bytes[entry.value]))
        }
        if previous != nil { output.write(UInt8(ascii: "\n")) }
    }

    /// Writes the signed-headers list, `a;b;c` (after ``sort()``).
    func writeSignedHeaders(to output: inout ByteWriter) {
        let bytes = storage.written
        var previous: Range<Int>?
        for entry in UnsafeBufferPointer(rebasing: entries[..<count]) {
            if let previous, ByteComparison.compare(bytes, previous, entry.name) == 0 { continue }
            if previous != nil { output.write(UInt8(ascii: ";")) }
            output.write(UnsafeBufferPointer(rebasing: bytes[entry.name]))
            previous = entry.name
        }
    }

    /// Trims leading and trailing whitespace and collapses inner runs to one space,
    /// copying each run of non-whitespace bytes at once.
    private static func writeTrimmed(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        var index = 0
        var first = true
        while index < bytes.count {
            while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !ASCII.isWhitespace(bytes[index]) { index += 1 }
            guard index > start else { break }
            if !first { output.write(UInt8(ascii: " ")) }
            output.write(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            first = false
        }
    }
}

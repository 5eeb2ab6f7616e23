/// Stage 1d–1e: canonical headers and the signed-headers list.
///
/// Names are lowercased and sorted; values are trimmed and inner whitespace runs
/// (including folded line breaks and tabs) collapse to one space; repeated names are
/// joined with `,` in the order received, never sorted or de-duplicated.
struct CanonicalHeaders {
    /// Headers that are never signed: proxies and clients add or change them in flight.
    static func isNeverSigned(_ lowercasedName: String) -> Bool {
        switch lowercasedName {
        case "user-agent", "x-amzn-trace-id", "expect", "connection", "authorization": true
        default: false
        }
    }

    private let headers: HTTPHeaderList
    /// Lowercased names with their field index, sorted by name then by position.
    private let entries: [(name: String, index: Int)]

    init(_ headers: HTTPHeaderList) {
        var entries: [(name: String, index: Int)] = []
        entries.reserveCapacity(headers.count)
        for (index, field) in headers.fields.enumerated() {
            let name = ASCII.lowercased(field.name)
            if !Self.isNeverSigned(name) { entries.append((name, index)) }
        }
        entries.sort { $0.name != $1.name ? $0.name < $1.name : $0.index < $1.index }
        self.headers = headers
        self.entries = entries
    }

    /// The signed-headers list, `a;b;c`.
    var signedHeaders: String {
        let capacity = entries.reduce(0) { $0 + $1.name.utf8.count + 1 }
        return ByteWriter.string(capacity: capacity) { out in
            var previous: String?
            for entry in entries where entry.name != previous {
                if previous != nil { out.write(UInt8(ascii: ";")) }
                out.write(entry.name)
                previous = entry.name
            }
        }
    }

    /// Appends the canonical header block, each `name:value\n`.
    func append(to output: inout [UInt8]) {
        var previous: String?
        for entry in entries {
            if entry.name == previous {
                output.append(UInt8(ascii: ","))
            } else {
                if previous != nil { output.append(UInt8(ascii: "\n")) }
                output.appendUTF8(entry.name)
                output.append(UInt8(ascii: ":"))
                previous = entry.name
            }
            Self.appendTrimmedValue(headers.fields[entry.index].value, to: &output)
        }
        if previous != nil { output.append(UInt8(ascii: "\n")) }
    }

    /// Trims leading and trailing whitespace and collapses inner runs to one space,
    /// copying each run of non-whitespace bytes at once.
    static func appendTrimmedValue(_ value: String, to output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            var index = 0
            var first = true
            while index < bytes.count {
                while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
                let start = index
                while index < bytes.count, !ASCII.isWhitespace(bytes[index]) { index += 1 }
                guard index > start else { break }
                if !first { output.append(UInt8(ascii: " ")) }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                first = false
            }
        }
    }
}

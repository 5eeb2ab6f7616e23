/// Stage 1d–1e: canonical headers and the signed-headers list.
///
/// Names are lowercased and sorted; values are trimmed and inner whitespace runs
/// (including folded line breaks and tabs) collapse to one space; repeated names are
/// joined with `,` in the order received, never sorted or de-duplicated.
enum CanonicalHeaders {
    /// Headers that are never signed: proxies and clients add or change them in flight.
    static let neverSigned: Set<String> = ["user-agent", "x-amzn-trace-id", "expect", "connection", "authorization"]

    /// Appends the canonical header block (each `name:value\n`) to `output` and returns the
    /// signed-headers list (`a;b;c`).
    static func append(_ headers: HTTPHeaderList, to output: inout [UInt8]) -> String {
        var entries: [(name: String, index: Int)] = []
        entries.reserveCapacity(headers.count)
        for (index, field) in headers.fields.enumerated() {
            let name = field.name.lowercased()
            if !neverSigned.contains(name) { entries.append((name, index)) }
        }
        entries.sort { $0.name != $1.name ? $0.name < $1.name : $0.index < $1.index }

        var signed = [UInt8]()
        signed.reserveCapacity(entries.count * 12)
        var previous: String?
        for entry in entries {
            if entry.name == previous {
                output.append(UInt8(ascii: ","))
            } else {
                if previous != nil {
                    output.append(UInt8(ascii: "\n"))
                    signed.append(UInt8(ascii: ";"))
                }
                output.appendUTF8(entry.name)
                output.append(UInt8(ascii: ":"))
                signed.appendUTF8(entry.name)
                previous = entry.name
            }
            appendTrimmedValue(headers.fields[entry.index].value, to: &output)
        }
        if previous != nil { output.append(UInt8(ascii: "\n")) }
        return String(utf8Bytes: signed)
    }

    /// Trims leading and trailing whitespace and collapses inner runs to one space.
    static func appendTrimmedValue(_ value: String, to output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            var pendingSpace = false
            var started = false
            for byte in bytes {
                if ASCII.isWhitespace(byte) {
                    pendingSpace = started
                } else {
                    if pendingSpace { output.append(UInt8(ascii: " ")) }
                    output.append(byte)
                    pendingSpace = false
                    started = true
                }
            }
        }
    }
}

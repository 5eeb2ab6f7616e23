/// A request target's path as the gateway and the proxy read it: the way an upstream that
/// decodes percent-escapes (nginx, most web frameworks) reads it, so that what a route is
/// matched on, what a method ARN names and what the upstream serves are one path.
///
/// - A `%2F` is a separator like `/`: `/a%2Fb` is the two segments `a` and `b`.
/// - A dot segment (`.` or `..`) is refused however it is spelled: raw, percent-encoded in
///   any case and any number of times (`%2e`, `%252E`), between `/`, `%2F`, `\` or `%5C`, or
///   before a `;` parameter (`..;x`, which servlet containers read as `..`). API Gateway
///   answers such a path 400; an upstream would resolve it out of the route it was sent to.
package enum RequestPath {
    /// The path part of `target` (before any `?` or `#`), its segments percent-decoded once and
    /// split on `/`, a decoded `%2F` included; empty segments are dropped. A `%` without two hex
    /// digits after it stays as it is; a segment that does not decode to UTF-8 is kept as it came.
    package static func segments(_ target: Substring) -> [String] {
        var segments: [String] = []
        let bytes = target.utf8
        var start = bytes.startIndex
        var index = start
        // One pass over the bytes: a segment without `%` is copied as it is.
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "/") {
                appendSegment(target[start..<index], to: &segments)
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        appendSegment(target[start..<index], to: &segments)
        return segments
    }

    /// The segments of a whole target, as for a substring.
    package static func segments(_ target: String) -> [String] { segments(target[...]) }

    /// Adds `raw` (one piece between `/`) to `segments`: nothing when empty, decoded once
    /// when it holds a `%` (a decoded `%2F` splitting it further).
    private static func appendSegment(_ raw: Substring, to segments: inout [String]) {
        guard !raw.isEmpty else { return }
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return segments.append(String(raw)) }
        let decoded = String(validating: decodedOnce(Array(raw.utf8)), as: UTF8.self) ?? String(raw)
        segments += decoded.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// `/` and `segments(_:)` joined by `/`: the path a method ARN names.
    package static func normalized(_ target: Substring) -> String {
        "/" + segments(target).joined(separator: "/")
    }

    /// True when a segment of `target`'s path part is `.` or `..` in any of the spellings above.
    /// Asked of every forwarded request: a path with neither `.` nor `%` returns at once.
    package static func hasDotSegment(_ target: String) -> Bool {
        // One pass over the bytes to the first `?` or `#`: most paths end the check here.
        var end = target.utf8.endIndex
        var suspect = false
        for index in target.utf8.indices {
            let byte = target.utf8[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                end = index
                break
            }
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%") { suspect = true }
        }
        guard suspect else { return false }
        var bytes = Array(target.utf8[..<end])
        // Each round undoes one level of encoding; four are more than any upstream applies.
        for _ in 0..<4 {
            if containsDotSegment(bytes) { return true }
            let decoded = decodedOnce(bytes)
            guard decoded != bytes else { return false }
            bytes = decoded
        }
        return containsDotSegment(bytes)
    }

    /// A piece between `/` or `\`, up to any `;`, that is `.` or `..`.
    private static func containsDotSegment(_ bytes: [UInt8]) -> Bool {
        var dots = 0  // the piece's dots so far; -1 once it holds anything else
        for index in 0...bytes.count {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: ";"):
                if dots == 1 || dots == 2 { return true }
                dots = byte == UInt8(ascii: ";") ? -1 : 0
            case UInt8(ascii: "."): if dots >= 0 { dots += 1 }
            default: dots = -1
            }
        }
        return false
    }

    /// `%XX` escapes decoded; a `%` not followed by two hex digits is kept as it is (as nginx
    /// keeps it), so that a malformed escape cannot hide a well-formed one after it.
    private static func decodedOnce(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                out.append(bytes[index])
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue else {
                out.append(bytes[index])
                index += 1
                continue
            }
            out.append(high << 4 | low)
            index += 3
        }
        return out
    }
}

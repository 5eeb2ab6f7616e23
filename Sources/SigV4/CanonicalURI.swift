/// Stage 1b: the canonical URI, from the raw wire path.
enum CanonicalURI {
    /// Appends the canonical URI for `path` under `options` to `output`.
    static func append(path: String, options: SigningOptions, to output: inout [UInt8]) {
        var path = path
        path.withUTF8 { bytes in
            if bytes.isEmpty {
                output.append(UInt8(ascii: "/"))
            } else if options.normalizesPath && !isAlreadyNormal(bytes) {
                appendNormalized(bytes, doubleEncode: options.doubleEncodesPath, to: &output)
            } else if options.doubleEncodesPath {
                URIEncoding.append(encoding: bytes, keepSlash: true, to: &output)
            } else {
                appendS3WirePath(bytes, to: &output)
            }
        }
    }

    /// True when normalization would change nothing: the path starts with `/` and has no
    /// empty, `.` or `..` segment. Most paths are like this, and skip the segment walk.
    static func isAlreadyNormal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "/") else { return false }
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/") {
                let next = index + 1 < bytes.count ? bytes[index + 1] : nil
                if next == UInt8(ascii: "/") || next == UInt8(ascii: ".") { return false }
            }
            index += 1
        }
        return true
    }

    /// S3 quirk: the canonical URI is the wire path exactly as sent, never re-encoded.
    static func appendS3WirePath(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(contentsOf: bytes)
    }

    /// Removes dot segments and empty segments the way botocore and aws-c-auth do:
    /// `.` and `//` vanish, `..` pops a segment (never above the root), and a trailing
    /// `/` is kept only when the raw path ended with one and something is left.
    static func appendNormalized(
        _ bytes: UnsafeBufferPointer<UInt8>, doubleEncode: Bool, to output: inout [UInt8]
    ) {
        let segments = remainingSegments(bytes)
        output.append(UInt8(ascii: "/"))
        for (position, segment) in segments.enumerated() {
            if position > 0 { output.append(UInt8(ascii: "/")) }
            let slice = UnsafeBufferPointer(rebasing: bytes[segment])
            if doubleEncode {
                URIEncoding.append(encoding: slice, keepSlash: false, to: &output)
            } else {
                output.append(contentsOf: slice)
            }
        }
        if !segments.isEmpty, bytes.last == UInt8(ascii: "/") {
            output.append(UInt8(ascii: "/"))
        }
    }

    /// The ranges of the segments that survive dot-segment removal, in order.
    static func remainingSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var stack: [Range<Int>] = []
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            let segment = start..<index
            start = index + 1
            switch segment.count {
            case 0:
                continue
            case 1 where bytes[segment.lowerBound] == UInt8(ascii: "."):
                continue
            case 2 where bytes[segment.lowerBound] == UInt8(ascii: ".") && bytes[segment.lowerBound + 1] == UInt8(ascii: "."):
                _ = stack.popLast()
            default:
                stack.append(segment)
            }
        }
        return stack
    }
}

/// Stage 1b: the canonical URI, from the raw wire path.
enum CanonicalURI {
    /// The most bytes ``write(path:options:to:)`` writes for a path of `count` bytes.
    static func capacity(forPathOf count: Int) -> Int { 3 * count + 2 }

    /// Writes the canonical URI for the wire path `bytes` under `options`.
    static func write(path bytes: UnsafeBufferPointer<UInt8>, options: SigningOptions, to output: inout ByteWriter) {
        if bytes.isEmpty {
            output.write(UInt8(ascii: "/"))
        } else if options.normalizesPath && !isAlreadyNormal(bytes) {
            writeNormalized(bytes, doubleEncode: options.doubleEncodesPath, to: &output)
        } else if options.doubleEncodesPath {
            URIEncoding.write(encoding: bytes, keepSlash: true, to: &output)
        } else {
            writeS3WirePath(bytes, to: &output)
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
    static func writeS3WirePath(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        output.write(bytes)
    }

    /// Removes dot segments and empty segments the way botocore and aws-c-auth do:
    /// `.` and `//` vanish, `..` pops a segment (never above the root), and a trailing
    /// `/` is kept only when the raw path ended with one and something is left.
    static func writeNormalized(
        _ bytes: UnsafeBufferPointer<UInt8>, doubleEncode: Bool, to output: inout ByteWriter
    ) {
        let segments = remainingSegments(bytes)
        output.write(UInt8(ascii: "/"))
        for (position, segment) in segments.enumerated() {
            if position > 0 { output.write(UInt8(ascii: "/")) }
            let slice = UnsafeBufferPointer(rebasing: bytes[segment])
            if doubleEncode {
                URIEncoding.write(encoding: slice, keepSlash: false, to: &output)
            } else {
                output.write(slice)
            }
        }
        if !segments.isEmpty, bytes.last == UInt8(ascii: "/") {
            output.write(UInt8(ascii: "/"))
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

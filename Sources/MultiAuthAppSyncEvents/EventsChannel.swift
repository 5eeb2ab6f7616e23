/// AppSync Events channel paths: `/namespace/segment…`, 1 to 5 segments of at most 50
/// letters, digits or `-`; a subscription may end in the wildcard `/*`.
enum EventsChannel {
    /// Checks a channel to publish to (no wildcard, at least two segments).
    static func checkPublish(_ channel: String) throws(EventsError) {
        let segments = try self.segments(channel)
        guard segments.count >= 2 else { throw .invalidChannel(channel, reason: "publish needs a namespace and at least one segment") }
        if segments.contains("*") { throw .invalidChannel(channel, reason: "publish cannot use the wildcard") }
    }

    /// Checks a channel to subscribe to (a final `*` allowed).
    static func checkSubscribe(_ channel: String) throws(EventsError) {
        let segments = try self.segments(channel)
        if segments.dropLast().contains("*") { throw .invalidChannel(channel, reason: "the wildcard may only be the last segment") }
    }

    private static func segments(_ channel: String) throws(EventsError) -> [Substring] {
        guard channel.hasPrefix("/") else { throw .invalidChannel(channel, reason: "must start with /") }
        let segments = channel.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard (1...5).contains(segments.count) else { throw .invalidChannel(channel, reason: "1 to 5 segments") }
        for segment in segments where segment != "*" {
            guard (1...50).contains(segment.utf8.count), segment.utf8.allSatisfy(isSegmentByte) else {
                throw .invalidChannel(channel, reason: "segments are 1 to 50 letters, digits or '-'")
            }
        }
        return segments
    }

    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
    }
}

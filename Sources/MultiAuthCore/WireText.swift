/// The one check for text that goes on the wire inside a header or a request line (keys,
/// tokens, session tokens, the region and service of a credential scope): no line break,
/// NUL or other control character, so nothing can end a header early or be folded.
public enum WireText {
    /// True when `text` holds no control character (U+0000–U+001F, U+007F), tab included.
    @inlinable
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        !text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}

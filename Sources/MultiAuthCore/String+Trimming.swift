extension StringProtocol {
    /// Without leading and trailing spaces, tabs, CR and LF, compared as Unicode scalars: a
    /// CRLF (one `Character` in Swift) is trimmed like any other line ending.
    package var trimmedWhitespace: String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

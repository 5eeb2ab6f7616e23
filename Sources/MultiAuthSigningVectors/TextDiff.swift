/// Readable differences between expected and produced text.
enum TextDiff {
    /// `nil` when equal; otherwise the first differing line with both versions in full.
    static func exact(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var line = 0
        while line < min(expectedLines.count, actualLines.count), expectedLines[line] == actualLines[line] { line += 1 }
        let want = line < expectedLines.count ? String(expectedLines[line]) : "<end of text>"
        let got = line < actualLines.count ? String(actualLines[line]) : "<end of text>"
        return """
            first difference at line \(line + 1):
              expected: \(visible(want))
              actual:   \(visible(got))
            expected (full):
            \(indent(expected))
            actual (full):
            \(indent(actual))
            """
    }

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "    | " + $0 }.joined(separator: "\n")
    }

    /// Shows tabs and carriage returns, which otherwise hide in a terminal.
    static func visible(_ text: String) -> String {
        text.replacing("\t", with: "\\t").replacing("\r", with: "\\r")
    }
}

import MultiAuthCore
import MultiAuthCredentials

/// One section of an AWS shared file (`credentials` or `config`) changed in its text, every
/// other line kept as it was.
enum ConfigFileSection {
    /// The keys a session replaces in the credentials file (the legacy token name too, so no
    /// stale one is left).
    static let sessionKeys: Set<String> = ["aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_security_token"]

    /// `text` with `values` written at the top of section `name` (created at the end when
    /// missing), and that section's lines for the keys in `dropping` (and the written ones) removed.
    static func replacing(_ name: String, with values: [(String, String)], dropping: Set<String> = [], in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let written = values.map { "\($0.0) = \($0.1)" }
        let removed = dropping.union(values.map(\.0))
        guard let header = lines.firstIndex(where: { sectionName($0) == name }) else {
            return (lines + (lines.isEmpty ? [] : [""]) + ["[\(name)]"] + written).joined(separator: "\n") + "\n"
        }
        let end = lines[(header + 1)...].firstIndex { sectionName($0) != nil } ?? lines.endIndex
        let kept = lines[(header + 1)..<end].filter { line in
            let key = line.split(separator: "=", maxSplits: 1).first.map { String($0).trimmedWhitespace.lowercased() }
            return key.map { !removed.contains($0) } ?? true
        }
        return (lines[..<header] + [lines[header]] + written + kept + lines[end...]).joined(separator: "\n") + "\n"
    }

    /// The name of the section `line` opens, if it is a `[name]` header.
    static func sectionName(_ line: String) -> String? { ConfigText.header(line) }
}

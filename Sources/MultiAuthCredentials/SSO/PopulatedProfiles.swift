import MultiAuthCore

/// `multiauth sso populate`'s change to an AWS config file: one `[profile NAME]` per SSO
/// account and role, each marked with a comment line naming the `sso-session` it was written
/// for, so a later run knows its own profiles from everything else. The text is changed by
/// section: a marked section of the session is replaced whole; a section of the same name
/// without the mark is never touched; every other line stays as it was. Writing the same
/// profiles again gives the same text.
package struct PopulatedProfiles: Sendable {
    /// One profile to write.
    package struct Profile: Sendable, Equatable {
        /// The profile's name (after `profile ` in its section header).
        package let name: String
        /// The account and role it signs in as.
        package let assignment: SSOAssignments.Assignment

        /// A profile named `name` for `assignment`.
        package init(name: String, assignment: SSOAssignments.Assignment) {
            self.name = name
            self.assignment = assignment
        }
    }

    /// What a merge did, by profile name.
    package struct Report: Sendable, Equatable {
        /// Written new, or rewritten because something changed.
        package var written: [String] = []
        /// Already as they should be.
        package var unchanged: [String] = []
        /// Not written: a profile of that name exists that this command did not write.
        package var skipped: [String] = []
        /// Written for this session before, gone from the portal now, and kept (no `--prune`).
        package var stale: [String] = []
        /// Written for this session before, gone from the portal now, and removed.
        package var pruned: [String] = []
    }

    /// The `sso-session` the profiles use.
    package let session: String
    /// `region` and `output` for every profile, when given.
    package let region: String?
    package let output: String?

    /// Profiles for `session`, with these settings.
    package init(session: String, region: String?, output: String?) {
        self.session = session
        self.region = region
        self.output = output
    }

    /// The comment line that marks a section as written for this session.
    var marker: String { "# written by multiauth sso populate for sso-session \(session)" }

    /// The profiles for `assignments`, named by `template` (`{account_name}`, `{account_id}`,
    /// `{role_name}`, `{sso_session}`) lower-cased, with any character other than a letter,
    /// digit, `.`, `_` or `-` made `-`. Names two assignments share get `-ACCOUNT_ID` added.
    /// - Throws: ``PopulateError`` for an unknown placeholder, or a name that comes out empty.
    package func profiles(_ assignments: [SSOAssignments.Assignment], template: String) throws(PopulateError) -> [Profile] {
        var named: [(String, SSOAssignments.Assignment)] = []
        for assignment in assignments {
            named.append((try Self.name(template, assignment: assignment, session: session), assignment))
        }
        var counts: [String: Int] = [:]
        for (name, _) in named { counts[name, default: 0] += 1 }
        return named.map { name, assignment in
            Profile(name: counts[name, default: 0] > 1 ? "\(name)-\(assignment.accountId)" : name, assignment: assignment)
        }
    }

    static func name(_ template: String, assignment: SSOAssignments.Assignment, session: String) throws(PopulateError) -> String {
        let values = ["account_name": assignment.accountName, "account_id": assignment.accountId, "role_name": assignment.roleName, "sso_session": session]
        var text = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            text += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { throw .template("an unclosed {") }
            let key = String(rest[rest.index(after: open)..<close])
            guard let value = values[key] else { throw .template("unknown placeholder {\(key.prefix(40))}") }
            text += value
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        var safe = ""
        for character in text.lowercased() {
            let keep = character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character))
            let next: Character = keep ? character : "-"
            if next == "-", safe.last == "-" { continue }
            safe.append(next)
        }
        let trimmed = String(safe.drop { $0 == "-" }.reversed().drop { $0 == "-" }.reversed())
        guard !trimmed.isEmpty else { throw .template("the name for \(assignment.accountId)/\(assignment.roleName) comes out empty") }
        return trimmed
    }

    /// `text` with `profiles` written (and, with `prune`, this session's profiles that are
    /// no longer among them removed), and what changed.
    package func merged(into text: String, profiles: [Profile], prune: Bool) -> (String, Report) {
        var file = ConfigText(text)
        var report = Report()
        let wanted = Set(profiles.map(\.name))
        for profile in profiles.sorted(by: { $0.name < $1.name }) {
            let lines = rendered(profile)
            guard let index = file.index(of: "profile \(profile.name)") else {
                file.append(lines)
                report.written.append(profile.name)
                continue
            }
            guard file.sections[index].body.contains(marker) else {
                report.skipped.append(profile.name)
                continue
            }
            if file.sections[index].content == lines {
                report.unchanged.append(profile.name)
            } else {
                file.replace(at: index, with: lines)
                report.written.append(profile.name)
            }
        }
        for section in file.sections.reversed() where section.body.contains(marker) {
            guard let header = section.name, header.hasPrefix("profile ") else { continue }
            let name = String(header.dropFirst("profile ".count))
            guard !wanted.contains(name) else { continue }
            if prune {
                file.remove(named: header)
                report.pruned.append(name)
            } else {
                report.stale.append(name)
            }
        }
        report.stale.sort()
        report.pruned.sort()
        return (file.text, report)
    }

    /// The section's lines.
    func rendered(_ profile: Profile) -> [String] {
        var lines = [
            "[profile \(profile.name)]", marker, "sso_session = \(session)", "sso_account_id = \(profile.assignment.accountId)",
            "sso_role_name = \(profile.assignment.roleName)",
        ]
        if let region { lines.append("region = \(region)") }
        if let output { lines.append("output = \(output)") }
        return lines
    }
}

/// Why `sso populate` cannot name or write the profiles.
package enum PopulateError: Error, Equatable, CustomStringConvertible {
    /// The `--name` template cannot be used.
    case template(String)

    package var description: String {
        switch self {
        case .template(let problem): "the profile name template: \(problem)"
        }
    }
}

/// An AWS config file as sections: the lines before the first header, then each header with
/// the lines up to the next one (blank lines at the end of a section stay with it).
package struct ConfigText {
    struct Section {
        /// The name inside `[...]`; nil for the lines before the first header.
        var name: String?
        var lines: [String]
        /// The header and lines, without the blank lines at the end.
        var content: [String] { Array(lines.reversed().drop { $0.allSatisfy(\.isWhitespace) }.reversed()) }
        /// The lines after the header.
        var body: [String] { Array(lines.dropFirst()) }
    }

    private(set) var sections: [Section] = []
    private let endsWithNewline: Bool

    init(_ text: String) {
        endsWithNewline = text.isEmpty || text.hasSuffix("\n")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var current = Section(name: nil, lines: [])
        for line in lines {
            if let name = Self.header(line) {
                sections.append(current)
                current = Section(name: name, lines: [line])
            } else {
                current.lines.append(line)
            }
        }
        sections.append(current)
    }

    /// The name inside `[...]` when `line` is a section header.
    package static func header(_ line: String) -> String? {
        let trimmed = line.trimmedWhitespace
        guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { return nil }
        return String(trimmed.dropFirst().dropLast()).trimmedWhitespace
    }

    func index(of name: String) -> Int? { sections.firstIndex { $0.name == name } }

    mutating func replace(at index: Int, with lines: [String]) {
        let blanks = sections[index].lines.count - sections[index].content.count
        sections[index].lines = lines + Array(repeating: "", count: blanks)
    }

    mutating func append(_ lines: [String]) {
        if let last = sections.indices.last, !sections[last].lines.isEmpty, sections[last].lines.last?.allSatisfy(\.isWhitespace) == false {
            sections[last].lines.append("")
        }
        sections.append(Section(name: Self.header(lines[0]), lines: lines))
    }

    mutating func remove(named name: String) {
        sections.removeAll { $0.name == name }
    }

    var text: String {
        let lines = sections.flatMap(\.lines)
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + (endsWithNewline ? "\n" : "")
    }
}


import ArgumentParser
import Foundation
import IntegrationSupport
import MultiAuthCLI
import MultiAuthServerCLI
import Testing

/// Every command line shown in docs/cli.md is parsed by the real argument parser of the
/// executable that runs it (issue 45, item 9: the docs showed `multiauth store --store URL …
/// list`, which the parser refused). Optional parts in `[…]` are left out and the first of
/// `a|b` alternatives is taken; lines that elide options (`...`, `…`) cannot be parsed and are
/// counted, not checked.
@Suite(.timeLimit(.minutes(1))) struct DocumentedExamplesTests {
    static let serverCommands: Set<String> = ["proxy", "gateway", "exec", "clients", "graphql", "subscribe", "events", "clear-caches", "realtime-url"]

    @Test func everyExampleInTheCLIGuideParses() throws {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        var checked = 0, elided = 0
        var failures: [String] = []
        for example in Self.examples(in: text) {
            if example.contains("...") || example.contains("…") {
                elided += 1
                continue
            }
            let arguments = Self.words(Self.simplified(example))
            do {
                if let name = arguments.first, Self.serverCommands.contains(name) {
                    _ = try MultiAuthServerCommand.parseAsRoot(arguments)
                } else {
                    _ = try MultiAuthCommand.parse(arguments)
                }
                checked += 1
            } catch {
                failures.append("multiauth \(arguments.joined(separator: " ")): \(MultiAuthCommand.message(for: error).replacingOccurrences(of: "\n", with: " "))")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(checked >= 50, "only \(checked) examples found")
        print("docs/cli.md: \(checked) examples parsed, \(elided) with elided options not parsed")
    }

    /// The `multiauth …` lines of the guide's code blocks, continuation lines joined, without
    /// an environment assignment before them, a trailing `&` or a comment.
    static func examples(in text: String) -> [String] {
        var examples: [String] = []
        var inBlock = false
        var pending: String?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            var current = withoutComment(line).trimmingCharacters(in: .whitespaces)
            if let started = pending {
                current = started + " " + current
            } else {
                let words = current.split(separator: " ")
                guard let start = words.firstIndex(where: { $0 == "multiauth" }), words[..<start].allSatisfy({ $0.contains("=") }) else { continue }
                current = words[(start + 1)...].joined(separator: " ")
            }
            if current.hasSuffix("\\") {
                pending = String(current.dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            pending = nil
            if current.hasSuffix("&") { current = String(current.dropLast()).trimmingCharacters(in: .whitespaces) }
            examples.append(current)
        }
        return examples
    }

    /// `line` up to a `#` that starts a comment (after a space, outside quotes).
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous == " " {
                return String(line[..<index])
            }
            previous = character
        }
        return line
    }

    /// Without `[optional]` parts, and with the first of `a|b` alternatives.
    static func simplified(_ example: String) -> String {
        var text = example
        while let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") {
            text.removeSubrange(open...close)
        }
        return text.split(separator: " ").map { word in
            word.contains("|") && !word.contains("'") && !word.contains("\"") ? String(word.split(separator: "|")[0]) : String(word)
        }.joined(separator: " ")
    }

    /// Words as a POSIX shell splits them (quotes removed, no expansion).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

public import HTTPTypes

/// The one place that says what is secret. Log lines, `-v` traces and descriptions all go
/// through it, so a header or field marked here never appears in any output.
public enum Redaction {
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// Header fields whose values are secret (lowercase).
    public static let sensitiveHeaders: Set<String> = [
        "authorization", "x-amz-security-token", "x-api-key", "cookie", "set-cookie", "proxy-authorization",
        "x-amz-server-side-encryption-customer-key",
    ]

    /// Query parameters and form or JSON fields whose values are secret (lowercase).
    public static let sensitiveFields: Set<String> = [
        "x-amz-security-token", "x-amz-signature", "x-amz-credential", "password", "client_secret", "refresh_token",
        "access_token", "id_token", "code", "code_verifier", "device_code", "secret", "token", "sessiontoken",
        "secretaccesskey", "secret_access_key", "session", "signintoken", "samlresponse",
    ]

    /// A mirror without children, for a value whose `description` is already redacted:
    /// `dump`, `Mirror(reflecting:)` and debuggers then show that description, never the
    /// stored fields behind it.
    public static func mirror<Subject>(of subject: Subject) -> Mirror {
        Mirror(subject, children: KeyValuePairs<String, Any>())
    }

    /// How a message names a malformed part of an input that may hold a secret (a PKCS#11 URI,
    /// a key file's line, a connection string): by its name when that is one of the `known`
    /// names, else by its position (from 1), never by its text, which may be the secret itself
    /// mistyped.
    package static func part(named name: String?, position: Int, of input: String, known: Set<String> = []) -> String {
        if let name, known.contains(name) { return "the \(input)'s attribute '\(name)'" }
        return "the \(input)'s attribute \(position)"
    }

    /// What a failed helper (a `credential_process`, a keyring tool) said on standard error, as
    /// a message may quote it: its first `lines` non-empty lines, joined by ` / ` and quoted
    /// (at most 300 bytes), with every word that looks like a secret (20 or more characters of
    /// a key's or token's alphabet, or the value of a sensitive `name=value`) replaced.
    package static func said(_ standardError: [UInt8], lines: Int = 3) -> String {
        let text = String(decoding: standardError.prefix(16 << 10), as: UTF8.self)
        let kept = text.split(whereSeparator: \.isNewline).map { $0.trimmedWhitespace }.filter { !$0.isEmpty }.prefix(lines)
        return quoted(kept.map(redactingSecretWords).joined(separator: " / "), limit: 300)
    }

    private static func redactingSecretWords(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            if let sign = word.firstIndex(where: { $0 == "=" || $0 == ":" }), sensitiveFields.contains(word[..<sign].lowercased()), word.index(after: sign) < word.endIndex {
                return word[...sign] + placeholder
            }
            let core = word.trimmingPunctuation
            let alphabet = core.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                default: Set("+/=_-.".utf8).contains(byte)
                }
            }
            let mixed = core.contains(where: \.isNumber) && core.contains(where: \.isLetter)
            return core.utf8.count >= 20 && alphabet && mixed ? String(word).replacing(core, with: placeholder) : String(word)
        }.joined(separator: " ")
    }

    /// What a description shows for an optional secret: `none`, or the placeholder.
    public static func secret(_ value: String?) -> String { value == nil ? "none" : placeholder }

    /// `text` with every occurrence of each secret (of 4 characters or more) replaced, for
    /// messages that quote a server's words (a server may echo what it was sent).
    public static func removing(_ secrets: [String], from text: String) -> String {
        secrets.filter { $0.count >= 4 }.reduce(text) { $0.replacing($1, with: placeholder) }
    }

    /// A URL as a message may quote it: user information (`user:password@`) removed, and at
    /// most 512 bytes, with control bytes escaped. A password may hold `/`, `?`, `#` or `@`
    /// unencoded (users paste them so), which ends the authority early for a URL parser: so
    /// when anything before the last `@` looks like user information (a `:` or an `@` in the
    /// authority), everything up to that last `@` goes. An `@` later in a path or query may
    /// then take some of the URL with it: a shorter message, never a password in it. The values
    /// of sensitive query fields are replaced, as ``target(_:)`` replaces them.
    public static func url(_ url: String) -> String {
        var text = url
        if let separator = text.firstRange(of: "://") {
            let rest = text[separator.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            if let last = rest.lastIndex(of: "@"), rest[..<authorityEnd].contains("@") || rest[..<last].contains(":") {
                text = String(text[..<separator.upperBound]) + String(text[text.index(after: last)...])
            }
        }
        return quoted(target(text), limit: 512)
    }

    /// Untrusted text as a message may quote it: at most `limit` bytes, control bytes shown as
    /// `\u{…}` escapes, so a message stays one short line.
    public static func quoted(_ text: String, limit: Int = 200) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if out.utf8.count >= limit { return out + "…" }
            if scalar.value < 0x20 || scalar.value == 0x7f {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True when `name` (any case) is a secret header.
    public static func isSensitive(header name: String) -> Bool { sensitiveHeaders.contains(name.lowercased()) }

    /// The value to show for header `name`. A SigV4 `Authorization` (algorithm, credential
    /// scope, signed headers and signature, none of them secret) is shown; any other
    /// authorization, token or key is replaced.
    public static func value(_ value: String, ofHeader name: String) -> String {
        guard isSensitive(header: name) else { return value }
        if name.lowercased() == "authorization", value.hasPrefix("AWS4-") { return value }
        return placeholder
    }

    /// `name: value` lines for `fields`, secrets replaced.
    public static func lines(_ fields: HTTPFields) -> [String] {
        fields.map { "\($0.name.rawName): \(value($0.value, ofHeader: $0.name.rawName))" }
    }

    /// A request target with the values of secret query parameters replaced. It splits on
    /// bytes, so a combining mark after `?` or `&` cannot hide a parameter from it.
    public static func target(_ target: String) -> String {
        let bytes = Array(target.utf8)
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return target }
        var out = Array(bytes[...question])
        let pairs = bytes[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        for (position, pair) in pairs.enumerated() {
            if position > 0 { out.append(UInt8(ascii: "&")) }
            let nameEnd = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let name = String(decoding: pair[..<nameEnd], as: UTF8.self)
            if sensitiveFields.contains(name.lowercased()), nameEnd < pair.endIndex {
                out += Array("\(name)=\(placeholder)".utf8)
            } else {
                out += pair
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A canonical request with the values of secret headers and query parameters replaced.
    public static func canonicalText(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("=") && !line.contains(":") ? target("?" + line).dropFirst().description : canonicalLine(line)
        }.joined(separator: "\n")
    }

    /// A canonical-request or string-to-sign line (`name:value`) with secret values replaced.
    public static func canonicalLine(_ line: Substring) -> String {
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { return String(line) }
        let name = Substring(line.utf8[..<colon])
        return isSensitive(header: String(name)) && name != "authorization" ? "\(name):\(placeholder)" : String(line)
    }
}

/// A type whose `description` leaves its secrets out. Its `debugDescription` is that same
/// description, and its mirror has no children, so `dump` and debuggers show the description
/// rather than the stored fields.
public protocol RedactedDescribing: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension RedactedDescribing {
    /// The redacted description.
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show the description.
    public var customMirror: Mirror { Redaction.mirror(of: self) }
}

extension Substring {
    /// Without quotes, brackets and sentence punctuation around it.
    fileprivate var trimmingPunctuation: Substring {
        let around: Set<Character> = ["\"", "'", "(", ")", "[", "]", "{", "}", ",", ";", ".", ":", "<", ">"]
        var word = self
        while let first = word.first, around.contains(first) { word = word.dropFirst() }
        while let last = word.last, around.contains(last) { word = word.dropLast() }
        return word
    }
}

import MultiAuthCore

/// An element of a SAML message, its namespaces resolved, with what exclusive XML
/// canonicalization needs to reproduce it.
struct SAMLElement: Sendable {
    /// An attribute other than a namespace declaration.
    struct Attribute: Sendable {
        let prefix: String
        let name: String
        let namespace: String
        let value: String
    }

    /// Character data or an element, in document order.
    enum Node: Sendable {
        case text(String)
        case element(SAMLElement)
    }

    /// The namespace URI (empty when none is in scope).
    let namespace: String
    /// The local name, without its prefix.
    let name: String
    /// The prefix as written (empty for none).
    let prefix: String
    /// Every attribute, prefixed ones too, in document order.
    let allAttributes: [Attribute]
    /// Every namespace in scope here, by prefix (`""`: the default namespace).
    let namespacesInScope: [String: String]
    /// Character data and child elements, in document order (comments dropped).
    var content: [Node] = []

    /// Unprefixed attributes by name (`ID`, `NotOnOrAfter`, `URI`, …).
    var attributes: [String: String] {
        var found: [String: String] = [:]
        for attribute in allAttributes where attribute.prefix.isEmpty { found[attribute.name] = attribute.value }
        return found
    }

    /// Child elements, in document order.
    var children: [SAMLElement] {
        content.compactMap { if case .element(let child) = $0 { child } else { nil } }
    }

    /// The element's own character data, entities decoded.
    var text: String {
        content.map { if case .text(let text) = $0 { text } else { "" } }.joined()
    }

    /// The name as written, with its prefix.
    var qualifiedName: String { prefix.isEmpty ? name : prefix + ":" + name }

    /// The children named `name` in `namespace`.
    func children(_ namespace: String, _ name: String) -> [SAMLElement] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }

    /// The first child named `name` in `namespace`.
    func child(_ namespace: String, _ name: String) -> SAMLElement? {
        children.first { $0.namespace == namespace && $0.name == name }
    }
}

/// A small, strict reader for the XML of SAML messages. It exists instead of FoundationXML,
/// whose libxml2 (and ICU behind it) every `multiauth` start would load: a SAML response
/// is read only to check it before STS, which verifies its signature. It refuses document
/// type declarations (no entity expansion, no external fetches) and nesting deeper than 64,
/// and everything XML 1.0 and Namespaces in XML 1.0 call not well-formed that a SAML message
/// could carry: bytes that are not UTF-8 or not XML characters, `--` in a comment, character
/// references to non-characters, `]]>` in text, attributes run together, a repeated
/// namespace declaration, an undeclared or unbindable prefix, a malformed name, and an XML
/// declaration anywhere but the start. A reader that accepts more than the service's parser
/// (libxml2 at STS) is where signature-wrapping attacks live.
enum SAMLXML {
    struct Malformed: Error {
        let problem: String
    }

    /// The document's root element.
    static func parse(_ bytes: [UInt8]) throws(Malformed) -> SAMLElement {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Malformed(problem: "bytes that are not UTF-8") }
        if let bad = text.unicodeScalars.first(where: { !isCharacter($0.value) }) {
            throw Malformed(problem: "the character U+\(String(bad.value, radix: 16, uppercase: true)), which XML does not allow")
        }
        var reader = Reader(bytes: normalizedLineEnds(bytes))
        return try reader.document()
    }

    /// XML 1.0 §2.2's `Char`.
    static func isCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// XML 1.0 §2.11: CR LF and a lone CR read as LF.
    static func normalizedLineEnds(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x0D) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() where byte != 0x0D || bytes.dropFirst(index + 1).first != 0x0A {
            out.append(byte == 0x0D ? 0x0A : byte)
        }
        return out
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Prefix → namespace, one frame per open element.
        var scopes: [[String: String]] = [["xml": "http://www.w3.org/XML/1998/namespace"]]

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Malformed) -> SAMLElement {
            if starts(with: "\u{FEFF}") { index += 3 }  // a byte order mark
            if starts(with: "<?xml"), index + 5 < bytes.count, Self.isSpace(bytes[index + 5]) { try skip(past: "?>") }
            try skipMisc()
            guard index < bytes.count else { throw Malformed(problem: "no root element") }
            let root = try element(depth: 0)
            try skipMisc()
            guard index == bytes.count else { throw Malformed(problem: "content after the root element") }
            return root
        }

        /// Whitespace, the XML declaration, processing instructions and comments.
        mutating func skipMisc() throws(Malformed) {
            while true {
                while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
                if starts(with: "<?") {
                    try processingInstruction()
                } else if starts(with: "<!--") {
                    try comment()
                } else if starts(with: "<!") {
                    throw Malformed(problem: "a document type declaration, which is refused")
                } else {
                    return
                }
            }
        }

        mutating func element(depth: Int) throws(Malformed) -> SAMLElement {
            guard depth < 64 else { throw Malformed(problem: "elements nested deeper than 64") }
            try expect("<")
            let qualified = name()
            guard Self.isQualifiedName(qualified) else { throw Malformed(problem: "an element named '\(qualified.prefix(40))', which is not a name") }
            var declared: [String: String] = [:]
            var raw: [(String, String)] = []
            while true {
                let spaced = skipSpace()
                if starts(with: "/>") || starts(with: ">") { break }
                guard spaced else { throw Malformed(problem: "attributes without a space between them in <\(qualified)>") }
                let attribute = name()
                guard Self.isQualifiedName(attribute) else { throw Malformed(problem: "a malformed attribute in <\(qualified)>") }
                skipSpace()
                try expect("=")
                skipSpace()
                let value = try quoted()
                if attribute == "xmlns" || attribute.hasPrefix("xmlns:") {
                    let prefix = attribute == "xmlns" ? "" : String(attribute.dropFirst(6))
                    guard declared[prefix] == nil else { throw Malformed(problem: "\(attribute) declared twice in <\(qualified)>") }
                    try Self.checkBinding(prefix, value)
                    declared[prefix] = value
                } else {
                    raw.append((attribute, value))
                }
            }
            scopes.append(declared)
            defer { scopes.removeLast() }
            var attributes: [SAMLElement.Attribute] = []
            for (attribute, value) in raw {
                let (prefix, local) = Self.split(attribute)
                guard let namespace = prefix.isEmpty ? "" : resolve(prefix) else { throw Malformed(problem: "undeclared namespace prefix \(prefix)") }
                guard !attributes.contains(where: { $0.name == local && $0.namespace == namespace }) else {
                    throw Malformed(problem: "attribute \(attribute) repeated in <\(qualified)>")
                }
                attributes.append(.init(prefix: prefix, name: local, namespace: namespace, value: value))
            }
            let (prefix, local) = Self.split(qualified)
            guard prefix != "xmlns", let namespace = resolve(prefix) else { throw Malformed(problem: "undeclared namespace prefix \(prefix)") }
            var inScope: [String: String] = [:]
            for scope in scopes { inScope.merge(scope) { _, inner in inner } }
            var node = SAMLElement(namespace: namespace, name: local, prefix: prefix, allAttributes: attributes, namespacesInScope: inScope)
            if starts(with: "/>") {
                index += 2
                return node
            }
            index += 1
            try content(of: &node, qualified: qualified, depth: depth)
            return node
        }

        mutating func content(of node: inout SAMLElement, qualified: String, depth: Int) throws(Malformed) {
            var text: [UInt8] = []
            func flush() {
                if !text.isEmpty { node.content.append(.text(String(decoding: text, as: UTF8.self))) }
                text.removeAll()
            }
            while index < bytes.count {
                if starts(with: "</") {
                    index += 2
                    guard name() == qualified else { throw Malformed(problem: "<\(qualified)> closed by another element") }
                    skipSpace()
                    try expect(">")
                    flush()
                    return
                } else if starts(with: "<!--") {
                    try comment()
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>")
                    text += bytes[start..<(index - 3)]
                } else if starts(with: "<?") {
                    throw Malformed(problem: "a processing instruction inside <\(qualified)>")
                } else if starts(with: "<!") {
                    throw Malformed(problem: "a declaration inside <\(qualified)>")
                } else if bytes[index] == UInt8(ascii: "<") {
                    flush()
                    node.content.append(.element(try element(depth: depth + 1)))
                } else if bytes[index] == UInt8(ascii: "&") {
                    text += try entity()
                } else if starts(with: "]]>") {
                    throw Malformed(problem: "']]>' in the text of <\(qualified)>")
                } else {
                    text.append(bytes[index])
                    index += 1
                }
            }
            throw Malformed(problem: "<\(qualified)> is not closed")
        }

        /// `<!--` … `-->`, with no `--` inside and no `-` before the end (XML 1.0 §2.5).
        mutating func comment() throws(Malformed) {
            index += 4
            while index < bytes.count {
                if starts(with: "--") {
                    guard starts(with: "-->") else { throw Malformed(problem: "'--' inside a comment") }
                    index += 3
                    return
                }
                index += 1
            }
            throw Malformed(problem: "a comment that is never closed")
        }

        /// `<?target …?>`: a target that is a name other than `xml` (any case), which only the
        /// declaration at the very start may use (XML 1.0 §2.6).
        mutating func processingInstruction() throws(Malformed) {
            index += 2
            let target = name()
            guard Self.isName(target), target.lowercased() != "xml" else { throw Malformed(problem: "a processing instruction named '\(target.prefix(20))'") }
            try skip(past: "?>")
        }

        mutating func quoted() throws(Malformed) -> String {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw Malformed(problem: "an attribute value without quotes")
            }
            let quote = bytes[index]
            index += 1
            var value: [UInt8] = []
            while index < bytes.count, bytes[index] != quote {
                guard bytes[index] != UInt8(ascii: "<") else { throw Malformed(problem: "'<' in an attribute value") }
                if bytes[index] == UInt8(ascii: "&") {
                    value += try entity()
                } else {
                    // §3.3.3: a literal tab or line end in a value reads as a space.
                    value.append(bytes[index] == 0x09 || bytes[index] == 0x0A ? 0x20 : bytes[index])
                    index += 1
                }
            }
            try expect(quote == UInt8(ascii: "\"") ? "\"" : "'")
            return String(decoding: value, as: UTF8.self)
        }

        /// `&lt;` and the other four, or a character reference.
        mutating func entity() throws(Malformed) -> [UInt8] {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw Malformed(problem: "an unterminated entity") }
            let reference = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            switch reference {
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "amp": return [UInt8(ascii: "&")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default:
                let hex = reference.hasPrefix("#x"), digits = reference.dropFirst(hex ? 2 : 1)
                let allDigits = !digits.isEmpty && digits.utf8.allSatisfy { hex ? $0.hexDigitValue != nil : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                let scalar = reference.hasPrefix("#") && allDigits ? UInt32(digits, radix: hex ? 16 : 10) : nil
                guard let scalar, SAMLXML.isCharacter(scalar), let character = Unicode.Scalar(scalar) else {
                    throw Malformed(problem: "an unknown entity or a reference to a non-character &\(reference.prefix(10));")
                }
                return Array(String(Character(character)).utf8)
            }
        }

        mutating func name() -> String {
            let start = index
            while index < bytes.count, !Self.isSpace(bytes[index]), !"/>=<\"'".utf8.contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        func resolve(_ prefix: String) -> String? {
            for scope in scopes.reversed() { if let namespace = scope[prefix] { return namespace } }
            return prefix.isEmpty ? "" : nil
        }

        func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return text.withUTF8Buffer { $0.elementsEqual(bytes[index..<(index + count)]) }
        }

        mutating func expect(_ text: StaticString) throws(Malformed) {
            guard starts(with: text) else { throw Malformed(problem: "expected '\(text)' at byte \(index)") }
            index += text.utf8CodeUnitCount
        }

        mutating func skip(past end: StaticString) throws(Malformed) {
            while index < bytes.count {
                if starts(with: end) {
                    index += end.utf8CodeUnitCount
                    return
                }
                index += 1
            }
            throw Malformed(problem: "'\(end)' never comes")
        }

        /// Skips whitespace; true when there was some.
        @discardableResult
        mutating func skipSpace() -> Bool {
            let start = index
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            return index > start
        }

        /// XML 1.0's `Name`, as far as ASCII goes: not empty, not starting with a digit, `-` or
        /// `.`, and none of the punctuation a name cannot hold (non-ASCII letters pass).
        static func isName(_ text: String) -> Bool {
            guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), first != UInt8(ascii: "-"),
                first != UInt8(ascii: ".")
            else { return false }
            return text.utf8.allSatisfy { $0 >= 0x80 || $0.isNameByte }
        }

        /// Namespaces in XML 1.0's `QName`: a name with at most one colon, not at either end.
        static func isQualifiedName(_ text: String) -> Bool {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            return parts.count <= 2 && parts.allSatisfy { isName(String($0)) && !$0.contains(":") }
        }

        /// Namespaces in XML 1.0 §3: `xml` only to its own URI, `xmlns` never, that URI to no
        /// other prefix, and no prefix undeclared (an empty URI).
        static func checkBinding(_ prefix: String, _ uri: String) throws(Malformed) {
            let xmlURI = "http://www.w3.org/XML/1998/namespace", xmlnsURI = "http://www.w3.org/2000/xmlns/"
            if prefix == "xmlns" || uri == xmlnsURI { throw Malformed(problem: "the xmlns prefix or namespace bound") }
            if (prefix == "xml") != (uri == xmlURI) { throw Malformed(problem: "the xml prefix or namespace bound otherwise") }
            if !prefix.isEmpty, uri.isEmpty { throw Malformed(problem: "the prefix \(prefix.prefix(20)) bound to no namespace") }
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        static func split(_ qualified: String) -> (prefix: String, local: String) {
            guard let colon = qualified.firstIndex(of: ":") else { return ("", qualified) }
            return (String(qualified[..<colon]), String(qualified[qualified.index(after: colon)...]))
        }
    }
}

extension UInt8 {
    /// An ASCII byte a name may hold: letters, digits, `-`, `.`, `_` and `:`.
    fileprivate var isNameByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"): true
        default: false
        }
    }
}

/// The kind of a GraphQL document's first operation, read without parsing the whole
/// document: the first `query`, `mutation` or `subscription` keyword, or `{` (shorthand query),
/// outside any braces, strings and comments (fragments before it are skipped).
public enum OperationKind: Sendable, Equatable {
    /// `query` or the `{ … }` shorthand.
    case query
    /// `mutation`.
    case mutation
    /// `subscription`.
    case subscription

    /// The first operation's kind, or nil when the document has none.
    public static func of(_ document: String) -> OperationKind? {
        let bytes = Array(document.utf8)
        var index = 0
        var depth = 0
        var inFragment = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "\""):
                index = endOfString(bytes, from: index)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                if depth == 0, byte == UInt8(ascii: "{") {
                    if !inFragment { return .query }
                    inFragment = false
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
            default:
                guard isNameByte(byte) else { break }
                let start = index
                while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                if depth == 0 {
                    if let kind = keyword(bytes[start..<index]) { return kind }
                    if bytes[start..<index].elementsEqual("fragment".utf8) { inFragment = true }
                }
                continue
            }
            index += 1
        }
        return nil
    }

    private static func keyword(_ name: ArraySlice<UInt8>) -> OperationKind? {
        switch String(decoding: name, as: UTF8.self) {
        case "query": .query
        case "mutation": .mutation
        case "subscription": .subscription
        default: nil
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }

    /// The index after the string (or block string) starting at `start`.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        let quote = UInt8(ascii: "\"")
        let block = start + 2 < bytes.count && bytes[start + 1] == quote && bytes[start + 2] == quote
        var index = start + (block ? 3 : 1)
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") { index += 2; continue }
            if bytes[index] == quote {
                if !block { return index + 1 }
                if index + 2 < bytes.count, bytes[index + 1] == quote, bytes[index + 2] == quote { return index + 3 }
            }
            index += 1
        }
        return index
    }
}

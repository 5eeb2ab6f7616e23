import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds where text stops being JSON, for error messages with a line and column
/// (Foundation's decoder reports only that the data is not valid). A key repeated in one
/// object is a problem too: decoders disagree on which value wins (Foundation keeps the
/// first, Python's json the last), so such a file means different things to different tools.
enum JSONSyntax {
    struct Problem: Error {
        let offset: Int
        let message: String
    }

    /// nil when `bytes` is one valid JSON value; else the 1-based line and column of the problem.
    static func firstProblem(in bytes: [UInt8]) -> (line: Int, column: Int, message: String)? {
        var scanner = Scanner(bytes: bytes)
        do throws(Problem) {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw Problem(offset: 0, message: "the file starts with a UTF-8 byte order mark; save it without one")
            }
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            guard scanner.index == bytes.count else { throw Problem(offset: scanner.index, message: "unexpected text after the value") }
            return nil
        } catch {
            let before = bytes[..<min(error.offset, bytes.count)]
            let line = before.filter { $0 == 0x0a }.count + 1
            let column = before.count - (before.lastIndex(of: 0x0a).map { $0 + 1 } ?? 0) + 1
            return (line, column, error.message)
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
        }

        func fail(_ message: String) -> Problem { Problem(offset: index, message: message) }

        mutating func value(depth: Int) throws(Problem) {
            guard depth < 512 else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end of file") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), depth: depth, keyed: true)
            case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), depth: depth, keyed: false)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): number()
            default: throw fail("unexpected \(describe(bytes[index]))")
            }
        }

        mutating func container(close: UInt8, depth: Int, keyed: Bool) throws(Problem) {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == close {
                index += 1
                return
            }
            var keys: Set<String> = []
            while true {
                if keyed {
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                    let keyStart = index
                    try string()
                    let key = Self.decodedKey(bytes[keyStart..<index])
                    guard keys.insert(key).inserted else {
                        throw Problem(offset: keyStart, message: "duplicate key \(Redaction.quoted(key)) in one object")
                    }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                    index += 1
                    skipSpace()
                }
                try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw fail("unexpected end of file") }
                if bytes[index] == close {
                    index += 1
                    return
                }
                guard bytes[index] == UInt8(ascii: ",") else { throw fail("expected ',' or '\(Character(UnicodeScalar(close)))'") }
                index += 1
                skipSpace()
            }
        }

        mutating func string() throws(Problem) {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"): index += 2
                case 0..<0x20: throw fail("control character in a string")
                default: index += 1
                }
            }
            throw fail("unterminated string")
        }

        /// A key as a decoder sees it: escapes resolved, so `"\\u0041"` and `"A"` are one key.
        static func decodedKey(_ quoted: ArraySlice<UInt8>) -> String {
            guard quoted.contains(UInt8(ascii: "\\")) else { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
            return (try? JSONDecoding.decode(String.self, from: quoted, what: "a key")) ?? String(decoding: quoted, as: UTF8.self)
        }

        /// A byte for a message: printable ASCII quoted, anything else in hex (never raw).
        func describe(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? "character '\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }

        mutating func literal(_ word: String) throws(Problem) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw fail("expected '\(word)'")
            }
            index += expected.count
        }

        mutating func number() {
            while index < bytes.count, "+-.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
        }
    }
}

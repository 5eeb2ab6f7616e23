/// `application/x-www-form-urlencoded` bodies and query strings (STS's query API, OAuth
/// token requests): every byte outside RFC 3986's unreserved set is percent-encoded.
public enum FormURLEncoding {
    private static let unreserved: Set<UInt8> = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `name=value&...` in the order given.
    public static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            escape(pair.0, into: &out)
            out.append(UInt8(ascii: "="))
            escape(pair.1, into: &out)
        }
        return out
    }

    /// One percent-encoded component.
    public static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        escape(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a query string or form body into its pairs (`+` is a space).
    public static func decode(_ text: some StringProtocol) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    private static func escape(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
            }
        }
    }

    private static func unescape(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

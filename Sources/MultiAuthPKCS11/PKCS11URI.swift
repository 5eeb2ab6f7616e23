public import MultiAuthSigV4

/// A PKCS#11 URI (RFC 7512): `pkcs11:token=NAME;object=LABEL;id=%01?pin-value=1234`.
///
/// Path attributes select the token (`token`, `serial`, `manufacturer`, `model`, `slot-id`)
/// and the object (`object`, `id`, `type`); query attributes give the PIN (`pin-value`, or
/// `pin-source` naming a file) and the module (`module-path`). Values are percent-decoded.
public struct PKCS11URI: Sendable, Equatable {
    /// The path attributes, decoded, by name.
    public let path: [String: [UInt8]]
    /// The query attributes, decoded, by name.
    public let query: [String: [UInt8]]

    /// The URI `text`.
    /// - Throws: ``X509IdentityError/pkcs11(_:)`` when it does not start with `pkcs11:`, an
    ///   attribute has no `=`, or an escape is not `%` and two hex digits.
    public init(_ text: String) throws(X509IdentityError) {
        guard text.hasPrefix("pkcs11:") else { throw .pkcs11("'\(Self.shown(text))' is not a pkcs11: URI") }
        let rest = text.dropFirst("pkcs11:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = try Self.attributes(parts.first ?? "", separator: ";")
        query = parts.count > 1 ? try Self.attributes(parts[1], separator: "&") : [:]
    }

    /// A path attribute as text.
    public func text(_ name: String) -> String? { path[name].map { String(decoding: $0, as: UTF8.self) } }

    /// A query attribute as text.
    public func queryText(_ name: String) -> String? { query[name].map { String(decoding: $0, as: UTF8.self) } }

    private static func attributes(_ text: Substring, separator: Character) throws(X509IdentityError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for pair in text.split(separator: separator) {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty else { throw .pkcs11("the URI attribute '\(shown(String(pair)))' has no name=value form") }
            result[String(halves[0])] = try decoded(halves[1])
        }
        return result
    }

    private static func decoded(_ text: Substring) throws(X509IdentityError) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .pkcs11("the URI has a '%' not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The URI as errors show it: up to the query, which may hold a PIN.
    static func shown(_ text: String) -> String {
        String(text.prefix { $0 != "?" }.prefix(200))
    }
}

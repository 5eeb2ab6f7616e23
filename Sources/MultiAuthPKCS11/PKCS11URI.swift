import MultiAuthCore
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
        guard text.hasPrefix("pkcs11:") else { throw .pkcs11("the key is not a pkcs11: URI (it must start with pkcs11:)") }
        let rest = text.dropFirst("pkcs11:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = try Self.attributes(parts.first ?? "", separator: ";", part: "PKCS#11 URI path")
        query = parts.count > 1 ? try Self.attributes(parts[1], separator: "&", part: "PKCS#11 URI query") : [:]
    }

    /// A path attribute as text.
    public func text(_ name: String) -> String? { path[name].map { String(decoding: $0, as: UTF8.self) } }

    /// A query attribute as text.
    public func queryText(_ name: String) -> String? { query[name].map { String(decoding: $0, as: UTF8.self) } }

    /// The attributes of one part; a malformed one is named by ``Redaction/part(named:position:of:)``.
    private static func attributes(_ text: Substring, separator: Character, part: String) throws(X509IdentityError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for (index, pair) in text.split(separator: separator).enumerated() {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty else {
                throw .pkcs11("\(Redaction.part(named: nil, position: index + 1, of: part)) has no name=value form")
            }
            guard let value = decoded(halves[1]) else {
                throw .pkcs11("\(Redaction.part(named: String(halves[0]), position: index + 1, of: part, known: attributeNames)) has a '%' not followed by two hex digits")
            }
            result[String(halves[0])] = value
        }
        return result
    }

    /// RFC 7512's attribute names, which a message may repeat.
    static let attributeNames: Set<String> = [
        "token", "serial", "manufacturer", "model", "slot-id", "slot-description", "slot-manufacturer", "library-manufacturer",
        "library-description", "library-version", "object", "id", "type", "pin-value", "pin-source", "module-name", "module-path",
    ]

    private static func decoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The URI as errors show it: its ``description``, at most 200 bytes.
    static func shown(_ text: String) -> String {
        String(text.prefix(200))
    }
}

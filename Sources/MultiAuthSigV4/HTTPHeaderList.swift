/// An ordered list of HTTP header fields that keeps repeated names and the order in
/// which fields were given, as they go on the wire.
package struct HTTPHeaderList: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral {
    /// One header field. The name keeps the caller's spelling; values are raw bytes of text.
    package struct Field: Sendable, Equatable {
        /// The field name as given (case preserved).
        package var name: String
        /// The field value as given, with any folded continuation lines.
        package var value: String

        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    package private(set) var fields: [Field]

    /// Creates a list from fields in order.
    package init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates a list from `(name, value)` pairs in order.
    package init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    package var count: Int { fields.count }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Appends a field, keeping any earlier field of the same name.
    package mutating func append(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Inserts a field at `index`.
    package mutating func insert(name: String, value: String, at index: Int) {
        fields.insert(Field(name: name, value: value), at: index)
    }

    /// Removes every field whose name matches `name` case-insensitively.
    package mutating func removeAll(named name: String) {
        guard contains(named: name) else { return }
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Reserves room for `extra` more fields.
    package mutating func reserveCapacity(_ extra: Int) {
        fields.reserveCapacity(fields.count + extra)
    }

    /// The first value for `name` (case-insensitive), if any.
    package func first(named name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// True when a field named `name` (case-insensitive) is present.
    package func contains(named name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// ASCII case-insensitive name comparison, without allocating.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        lhs.withUTF8InPlace { left in rhs.withUTF8InPlace { ByteComparison.equal(left, $0, ignoringCase: true) } }
    }
}

/// ASCII byte classification used by the parsers and canonicalization.
enum ASCII {
    @inline(__always)
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The uppercase hex digit of a nibble (0-15), without a table: `'0' + n`, plus 7 more
    /// when n > 9, which is exactly when `(9 - n) >> 8` is all ones.
    @inline(__always)
    static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        let value = Int(nibble)
        return UInt8(truncatingIfNeeded: value + 48 + ((9 - value) >> 8 & 7))
    }

    /// Whitespace SigV4 collapses in header values: space, tab, CR, LF, VT, FF.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0d)
    }

    /// RFC 9110 `tchar`: the characters allowed in a header name.
    static let tokenCharacters: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        return (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool { tokenCharacters[Int(byte)] }

    /// True when `name` is a non-empty RFC 9110 token.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenCharacter)
    }
}

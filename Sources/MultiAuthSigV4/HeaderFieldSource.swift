import HTTPTypes

/// The header fields a signature covers, read in place: the signer's own list or the fields
/// of a swift-http-types request. Canonicalization copies what it needs from here into its
/// own storage, so no field is converted to another type on the way.
protocol HeaderFieldSource: SendableMetatype {
    /// The number of fields, or more: canonicalization sizes its storage with it.
    var fieldCount: Int { get }
    /// The UTF-8 byte count of every name and value together, or more: a bound for the canonical block.
    var byteCount: Int { get }
    /// Calls `body` with each field's name and value bytes, in order.
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void)
    /// Calls `body` with each field's name bytes and its value as the string the source keeps,
    /// so keeping a value costs a reference rather than a copy of its bytes.
    func forEachFieldValue(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: String) -> Void)
}

extension HTTPHeaderList: HeaderFieldSource {
    var fieldCount: Int { count }

    var byteCount: Int { fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } }

    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                fields[index].name.withUTF8InPlace { name in fields[index].value.withUTF8InPlace { body(name, $0) } }
            }
        }
    }

    func forEachFieldValue(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: String) -> Void) {
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                fields[index].name.withUTF8InPlace { body($0, fields[index].value) }
            }
        }
    }
}

extension HTTPFields: HeaderFieldSource {
    var fieldCount: Int { count }

    var byteCount: Int {
        reduce(0) { total, field in total + field.name.canonicalName.utf8.count + field.withUnsafeBytesOfValue(\.count) }
    }

    /// Names come as swift-http-types keeps them canonically: already lowercase.
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        for field in self {
            field.name.canonicalName.withUTF8InPlace { name in field.withUnsafeBytesOfValue { body(name, $0) } }
        }
    }

    /// A value swift-http-types keeps as bytes that are not UTF-8 comes with its invalid
    /// sequences replaced (`HTTPField.value`).
    func forEachFieldValue(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: String) -> Void) {
        for field in self {
            field.name.canonicalName.withUTF8InPlace { body($0, field.value) }
        }
    }
}

/// The received fields that a signature's `SignedHeaders` lists, read in place: the
/// verifier recomputes the signature from these only, so a field added after signing (by a
/// proxy, say) changes nothing and no filtered copy of the request is made.
struct ListedFields<Base: HeaderFieldSource>: HeaderFieldSource {
    let base: Base
    /// The received `SignedHeaders` list, `a;b;c`. Borrowed from the parsed authorization's
    /// storage: a `ListedFields` lives only inside the `withBytes` call that lends it (the
    /// verifier's `withListedView`), and the verifier tests run every signature through it.
    let signedHeaders: UnsafeBufferPointer<UInt8>
    /// For a long list, its names (lowercase) in a set: looking each received field up in it
    /// keeps the cost linear in fields plus listed names (a list scanned per field once made
    /// 100,000 headers take a minute). Short lists, nearly every request, are scanned.
    private let longList: Set<[UInt8]>?

    init(base: Base, signedHeaders: UnsafeBufferPointer<UInt8>) {
        self.base = base
        self.signedHeaders = signedHeaders
        longList = signedHeaders.count > 512
            ? Set(signedHeaders.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { Self.lowercased($0) })
            : nil
    }

    private static func lowercased(_ bytes: some Collection<UInt8>) -> [UInt8] {
        bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    /// True when the signature lists `name` (any case).
    private func lists(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if let longList { return longList.contains(Self.lowercased(name)) }
        return SignedHeaderList.contains(name, in: signedHeaders, ignoringCase: true)
    }

    /// A bound, as the protocol allows: every received field.
    var fieldCount: Int { base.fieldCount }
    /// A bound: every received field's bytes.
    var byteCount: Int { base.byteCount }

    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        base.forEachField { name, value in
            if lists(name) { body(name, value) }
        }
    }

    func forEachFieldValue(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: String) -> Void) {
        base.forEachFieldValue { name, value in
            if lists(name) { body(name, value) }
        }
    }
}

/// A `SignedHeaders` list as received: lowercase names joined by `;`.
enum SignedHeaderList {
    /// True when `list` names `name`; exactly, or ignoring ASCII case (a received field's
    /// name keeps the sender's spelling).
    static func contains(_ name: UnsafeBufferPointer<UInt8>, in list: UnsafeBufferPointer<UInt8>, ignoringCase: Bool) -> Bool {
        var start = 0
        for index in 0...list.count where index == list.count || list[index] == UInt8(ascii: ";") {
            if ByteComparison.equal(UnsafeBufferPointer(rebasing: list[start..<index]), name, ignoringCase: ignoringCase) { return true }
            start = index + 1
        }
        return false
    }
}

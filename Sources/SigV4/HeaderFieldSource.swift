import HTTPTypes

/// The header fields a signature covers, read in place: the signer's own list or the fields
/// of a swift-http-types request. Canonicalization copies what it needs from here into its
/// own storage, so no field is converted to another type on the way.
protocol HeaderFieldSource {
    /// The number of fields.
    var fieldCount: Int { get }
    /// The UTF-8 byte count of every name and value together: a bound for the canonical block.
    var byteCount: Int { get }
    /// Calls `body` with each field's name and value bytes, in order.
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void)
}

extension HTTPHeaderList: HeaderFieldSource {
    var fieldCount: Int { count }

    var byteCount: Int { fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } }

    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        for field in fields {
            field.name.withUTF8InPlace { name in field.value.withUTF8InPlace { body(name, $0) } }
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
}

/// Byte-level helpers shared by the canonicalization stages.
///
/// Every stage writes into one growing `[UInt8]` so that signing allocates a handful of
/// buffers per request, not a string per component.
extension Array where Element == UInt8 {
    mutating func appendUTF8(_ text: String) {
        text.withUTF8InPlace { append(contentsOf: $0) }
    }
}

extension String {
    /// Decodes bytes known to be UTF-8 (every byte we build is, because inputs were).
    @inlinable
    init(utf8Bytes bytes: [UInt8]) {
        self = String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP optional whitespace).
    package func trimmingHTTPWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

extension String {
    /// Runs `body` over the string's UTF-8 bytes where they are. `withUTF8` needs a mutable
    /// copy, which costs reference counting on every call; only a bridged string, which has
    /// no contiguous UTF-8, is copied here.
    @inline(__always)
    func withUTF8InPlace<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }

    /// Runs `body` over the string's UTF-8 bytes in place, keeping `body`'s typed error.
    /// The outcome is carried out in two optionals rather than a `Result`, whose generic
    /// metadata would be looked up at run time on every call.
    @inline(__always)
    func withUTF8Bytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        var result: Result?
        var failure: Failure?
        withUTF8InPlace { bytes in
            do throws(Failure) { result = try body(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
        guard let result else { preconditionFailure("withUTF8Bytes: body neither returned nor threw") }
        return result
    }
}

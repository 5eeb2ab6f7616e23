/// The cases behind one of MultiAuth's public error structs: each failure with its details,
/// for matching inside the package. The struct shows callers its ``ErrorCode``, message and
/// cause; the cases stay free to change.
package protocol ErrorKind: Sendable, CustomStringConvertible {
    /// The failure's stable name.
    var code: ErrorCode { get }
}

extension ErrorKind {
    /// The error a case carries as its cause, if any: an ``UnderlyingError``'s original, or
    /// another error kept whole (a transport failure inside a request failure).
    package var underlying: (any Error & Sendable)? {
        guard let payload = Mirror(reflecting: self).children.first?.value else { return nil }
        for value in [payload] + Mirror(reflecting: payload).children.map(\.value) {
            if let kept = value as? UnderlyingError { return kept.error }
            if let error = value as? any Error & Sendable { return error }
        }
        return nil
    }
}

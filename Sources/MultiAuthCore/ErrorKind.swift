/// The cases behind one of MultiAuth's public error structs: each failure with its details,
/// for matching inside the package. The struct shows callers its ``ErrorCode``, message and
/// cause; the cases stay free to change.
package protocol ErrorKind: Sendable, CustomStringConvertible {
    /// The failure's stable name.
    var code: ErrorCode { get }
    /// The error a case keeps as its cause, written out per case.
    var underlying: (any Error & Sendable)? { get }
}

/// A stable name for a kind of failure, as `Credentials.expired` or `Token.codeMismatch`:
/// what a caller switches on.
///
/// The error enums' cases may grow in a minor release (Swift treats a package's enums as
/// frozen, so an exhaustive `switch` over them would then stop compiling); a code is a
/// string-backed struct, matched with `case "Credentials.expired":` or `==`, so a new code
/// needs nothing from callers but their `default:`. A code never changes once published,
/// even if the case behind it is renamed.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `Domain.kind`.
    public let rawValue: String

    /// The code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code `value`.
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }
}

/// An error with a stable ``ErrorCode``; every public error type of MultiAuth is one.
public protocol CodedError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var code: ErrorCode { get }
}

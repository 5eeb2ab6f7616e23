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

/// An error with a stable ``ErrorCode``, a message and its cause; every public error type of
/// MultiAuth is one, a struct whose cases stay inside the package.
public protocol CodedError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var code: ErrorCode { get }
    /// What failed and where, in one line; never a secret.
    var message: String { get }
    /// The error that caused this one, when there is one (a transport failure under a
    /// credentials failure, a store failure under a token failure).
    var underlying: (any Error & Sendable)? { get }
}

extension CodedError {
    /// The description.
    public var message: String { description }
    /// None.
    public var underlying: (any Error & Sendable)? { nil }
}

extension CodedError {
    /// The first error of type `T` in this error's chain of causes, this error first: the
    /// ``BodyError`` under a transport failure under a request failure, say.
    public func cause<T: Error>(as type: T.Type) -> T? {
        var current: (any Error)? = self
        while let error = current {
            if let found = error as? T { return found }
            current = (error as? any CodedError)?.underlying
        }
        return nil
    }
}

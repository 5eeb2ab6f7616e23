/// An error kept inside another error's case, so its cause is not flattened to text: the
/// original (cast it with `as?`), its ``ErrorCode`` and its message, with what was being done.
/// Two are equal when their codes and messages are.
public struct UnderlyingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The original error.
    public let error: any Error & Sendable
    /// What was being done when it happened, if the message should say.
    public let context: String?

    /// Keeps `error`, with `context` ("the refreshed tokens could not be saved") before its message.
    public init(_ error: any Error & Sendable, context: String? = nil) {
        self.error = error
        self.context = context
    }

    /// The original's code, when it has one.
    public var code: ErrorCode? { (error as? any CodedError)?.code }

    /// "CONTEXT: MESSAGE", or the original's message alone.
    public var description: String { context.map { "\($0): \(error)" } ?? "\(error)" }

    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        lhs.code == rhs.code && lhs.description == rhs.description
    }
}

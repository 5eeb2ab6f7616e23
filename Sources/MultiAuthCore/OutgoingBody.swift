import Synchronization

/// A request body that knows what it is: nothing, bytes in memory, a file (read from the
/// start on every attempt, so it can be hashed and replayed), or a stream (which says
/// whether it can be produced again).
///
/// The payload hash a signature covers is derived from the body by the authorizer; it is
/// never passed beside it.
public enum OutgoingBody: Sendable {
    /// No body.
    case empty
    /// A body held in memory.
    case bytes([UInt8])
    /// A file, streamed in chunks and never held in memory.
    case file(path: String)
    /// Bytes produced while they are sent.
    case stream(StreamedBody)

    /// True when the body can be sent again after a failed attempt.
    public var isReplayable: Bool {
        if case .stream(let stream) = self { return stream.isReplayable }
        return true
    }

    /// True when this body was already read by a transfer and cannot be read again.
    public var isConsumed: Bool {
        if case .stream(let stream) = self { return !stream.isReplayable && stream.wasOpened }
        return false
    }

    /// How errors name the body: `the body file 'x'`, `the streamed body 'standard input'`.
    public var name: String {
        switch self {
        case .empty: "the empty body"
        case .bytes: "the body"
        case .file(let path): "the body file '\(path)'"
        case .stream(let stream): "the streamed body '\(stream.name)'"
        }
    }
}

/// Produces a body's bytes, front to back, for one transfer on one thread.
public protocol BodyReader: AnyObject {
    /// Fills `buffer` with the next bytes and returns how many; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(BodyError) -> Int
}

/// A body produced on demand: its announced length (the `Content-Length`), whether it can be
/// produced again, and how to start producing it.
public struct StreamedBody: Sendable {
    /// A name for errors and logs (a file name, `standard input`).
    public let name: String
    /// The exact number of bytes the stream produces.
    public let length: Int
    /// True when ``open()`` may be called again to produce the same bytes.
    public let isReplayable: Bool
    private let opener: @Sendable () throws(BodyError) -> any BodyReader
    private let opened = OpenCount()

    /// Creates a stream body. `open` is called once per transfer; for a body that is not
    /// replayable it is called at most once, and a second transfer fails with
    /// ``BodyError/alreadyConsumed(body:)``.
    public init(
        name: String, length: Int, isReplayable: Bool, open: @escaping @Sendable () throws(BodyError) -> any BodyReader
    ) {
        self.name = name
        self.length = length
        self.isReplayable = isReplayable
        opener = open
    }

    /// Starts producing the bytes.
    public func open() throws(BodyError) -> any BodyReader {
        let first = opened.markOpened()
        guard isReplayable || first else { throw .alreadyConsumed(body: name) }
        return try opener()
    }

    /// True once a transfer has started reading the stream.
    public var wasOpened: Bool { opened.isOpened }
}

/// Whether a stream was opened, shared by every copy of one ``StreamedBody``.
private final class OpenCount: Sendable {
    private let flag = Atomic<Bool>(false)
    func markOpened() -> Bool { !flag.exchange(true, ordering: .relaxed) }
    var isOpened: Bool { flag.load(ordering: .relaxed) }
}

/// Why a body could not be produced. Names the body, never its content.
public struct BodyError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension BodyError {
    /// The body could not be read (a file that vanished, standard input that failed).
    public static func unreadable(body: String, reason: String) -> BodyError {
        BodyError(.unreadable(body: body, reason: reason))
    }
    /// The body ended before the length that was announced (and signed).
    public static func shorterThanAnnounced(body: String, announced: Int, produced: Int) -> BodyError {
        BodyError(.shorterThanAnnounced(body: body, announced: announced, produced: produced))
    }
    /// A body that cannot be produced twice was asked for again.
    public static func alreadyConsumed(body: String) -> BodyError { BodyError(.alreadyConsumed(body: body)) }
    /// A body could not be spooled to a private temporary file.
    public static func spoolFailed(body: String, reason: String) -> BodyError {
        BodyError(.spoolFailed(body: body, reason: reason))
    }
    /// A body grew past the most accepted.
    public static func tooLarge(body: String, limit: Int) -> BodyError {
        BodyError(.tooLarge(body: body, limit: limit))
    }
    /// Spooling the body would pass the server's total spool space (``SpoolBudget``).
    public static func spoolFull(body: String, limit: Int) -> BodyError {
        BodyError(.spoolFull(body: body, limit: limit))
    }
}

extension BodyError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``BodyError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case unreadable(body: String, reason: String)
        case shorterThanAnnounced(body: String, announced: Int, produced: Int)
        case alreadyConsumed(body: String)
        case spoolFailed(body: String, reason: String)
        case tooLarge(body: String, limit: Int)
        case spoolFull(body: String, limit: Int)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .unreadable(let body, let reason): "cannot read \(body): \(reason)"
            case .shorterThanAnnounced(let body, let announced, let produced):
                "\(body) ended after \(produced) of the \(announced) bytes announced; the request was not completed"
            case .alreadyConsumed(let body): "\(body) was already sent once and cannot be sent again"
            case .spoolFailed(let body, let reason): "cannot spool \(body) to a temporary file: \(reason)"
            case .tooLarge(let body, let limit): "\(body) is larger than the \(limit) bytes accepted"
            case .spoolFull(let body, let limit): "\(body) would pass the \(limit) bytes of spool space shared by the bodies being received"
            }
        }
    }
}

extension BodyError.Kind {
    /// `Body.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .unreadable: "Body.unreadable"
        case .shorterThanAnnounced: "Body.shorterThanAnnounced"
        case .alreadyConsumed: "Body.alreadyConsumed"
        case .spoolFailed: "Body.spoolFailed"
        case .tooLarge: "Body.tooLarge"
        case .spoolFull: "Body.spoolFull"
        }
    }
}

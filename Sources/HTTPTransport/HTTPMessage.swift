/// One header field as it goes on the wire (name case kept, repeats allowed).
public struct HTTPHeader: Sendable, Equatable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request body: none, bytes in memory, a file streamed in chunks (never held in memory),
/// or bytes produced on demand (an `aws-chunked` upload).
public enum HTTPBody: Sendable, Equatable {
    case none
    case bytes([UInt8])
    case file(path: String)
    case stream(any HTTPBodyStream)

    public static func == (lhs: HTTPBody, rhs: HTTPBody) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.bytes(let a), .bytes(let b)): a == b
        case (.file(let a), .file(let b)): a == b
        case (.stream(let a), .stream(let b)): a === b
        default: false
        }
    }
}

/// A body produced while it is sent, read once, front to back, by one transfer.
public protocol HTTPBodyStream: AnyObject, Sendable {
    /// The total number of bytes the stream will produce (the Content-Length).
    var length: Int { get }
    /// Fills `buffer` with the next bytes and returns how many; 0 at the end.
    /// - Throws: a description of why the body cannot be read (the transfer is aborted).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPBodyStreamError) -> Int
}

/// Why a streamed body could not be produced.
public struct HTTPBodyStreamError: Error, Sendable, Equatable {
    /// What failed, naming the file where there is one.
    public let reason: String

    /// An error.
    public init(_ reason: String) { self.reason = reason }
}

/// An HTTP request exactly as it will be sent: the transport adds no header of its own.
public struct HTTPRequest: Sendable {
    /// The method.
    public var method: String
    /// The absolute URL, sent as given (dot segments are not squashed).
    public var url: String
    /// The header fields, in order.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: HTTPBody
    /// Where the response body goes: memory (nil) or this file.
    public var responseFile: String?

    /// Creates a request.
    public init(method: String, url: String, headers: [HTTPHeader] = [], body: HTTPBody = .none, responseFile: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.responseFile = responseFile
    }
}

/// A response: status, header fields in order, and the body (empty when written to a file).
public struct HTTPResponse: Sendable {
    /// The status code.
    public let status: Int
    /// The header fields of the final response, in order.
    public let headers: [HTTPHeader]
    /// The body bytes.
    public let body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Why a request got no response. Messages name the URL's host, never headers or bodies.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case connectionFailed(host: String, reason: String)
    case timedOut(host: String)
    case tlsFailure(host: String, reason: String)
    case cancelled
    case unreadableBody(path: String, reason: String)
    case unwritableResponseFile(path: String, reason: String)
    case transport(code: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL '\(url)'"
        case .connectionFailed(let host, let reason): "cannot connect to \(host): \(reason)"
        case .timedOut(let host): "\(host) did not answer in time"
        case .tlsFailure(let host, let reason): "TLS failure with \(host): \(reason)"
        case .cancelled: "the request was cancelled"
        case .unreadableBody(let path, let reason): "cannot read body file '\(path)': \(reason)"
        case .unwritableResponseFile(let path, let reason): "cannot write '\(path)': \(reason)"
        case .transport(let code, let reason): "transfer failed (curl \(code)): \(reason)"
        }
    }

    /// True for failures worth retrying: the request may not have reached the server.
    public var isTransient: Bool {
        switch self {
        case .connectionFailed, .timedOut: true
        case .transport(let code, _): [52, 55, 56].contains(code)  // empty reply, send error, receive error
        default: false
        }
    }
}

/// Sends HTTP requests. Implementations never block a cooperative thread.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

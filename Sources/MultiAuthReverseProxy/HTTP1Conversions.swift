import HTTPTypes
import MultiAuthNIOBodies
import NIOCore
import NIOHTTP1

/// The conversions between SwiftNIO's HTTP/1 heads and swift-http-types on the forwarding
/// path, each done once per message with no URL parsing, no search for a second `Host` and
/// no cookie splitting (swift-nio-extras' general conversions do all three, for any use).
/// Only origin-form targets reach a decision (``RequestHeadRules``), so the target is the path
/// as it came.
enum HTTP1Conversions {
    /// The request `head` as swift-http-types holds it: its only `Host` (the head rules let no
    /// other through) as the authority, every other field as it came, a `Cookie` field whole.
    /// Nil when its method is not a token.
    static func request(_ head: HTTPRequestHead) -> HTTPRequest? {
        guard let method = method(head.method) else { return nil }
        var authority: String?
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            if authority == nil, isHost(name) {
                authority = value
                continue
            }
            guard let name = HTTPField.Name.received(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPRequest(method: method, scheme: "http", authority: authority, path: head.uri, headerFields: fields)
    }

    /// The upstream's response `head` in swift-http-types, or nil for a status over 999.
    static func response(_ head: HTTPResponseHead) -> HTTPResponse? {
        guard head.status.code <= 999 else { return nil }
        let status = HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase)
        return HTTPResponse(status: status, headerFields: HTTPFields(http1: head.headers))
    }

    /// `Host` in any case, compared byte by byte (no lowercased copy of every name).
    private static func isHost(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        for expected in "host".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        return bytes.next() == nil
    }

    private static func method(_ method: HTTPMethod) -> HTTPRequest.Method? {
        switch method {
        case .GET: .get
        case .HEAD: .head
        case .POST: .post
        case .PUT: .put
        case .DELETE: .delete
        case .PATCH: .patch
        case .OPTIONS: .options
        case .CONNECT: .connect
        case .TRACE: .trace
        default: HTTPRequest.Method(method.rawValue)
        }
    }
}

extension ByteBuffer {
    /// Writes `request` as the HTTP/1.1 head sent upstream: `Host` first (from the authority),
    /// then the fields in order, every `Cookie` joined into one field where the first stood
    /// (RFC 9110 section 5.3 allows a list only for fields defined as lists, and `Cookie` is
    /// not one). swift-http-types holds no CR, LF or NUL in a value.
    mutating func writeRequestHead(_ request: HTTPRequest) {
        writeString(request.method.rawValue)
        writeStaticString(" ")
        writeString(request.path ?? "/")
        writeStaticString(" HTTP/1.1\r\n")
        if let authority = request.authority {
            writeStaticString("Host: ")
            writeString(authority)
            writeStaticString("\r\n")
        }
        var cookieWritten = false
        for field in request.headerFields {
            if field.name == .cookie {
                guard !cookieWritten else { continue }
                cookieWritten = true
                writeCookies(request.headerFields)
                continue
            }
            writeString(field.name.rawName)
            writeStaticString(": ")
            writeString(field.value)
            writeStaticString("\r\n")
        }
        writeStaticString("\r\n")
    }

    /// Every `Cookie` of `fields` as one field, its values joined by `; `.
    private mutating func writeCookies(_ fields: HTTPFields) {
        writeStaticString("Cookie: ")
        var first = true
        for field in fields where field.name == .cookie {
            if !first { writeStaticString("; ") }
            first = false
            writeString(field.value)
        }
        writeStaticString("\r\n")
    }

    /// Writes `head`'s status line and fields as HTTP/1.1, leaving out the framing fields
    /// `framing` replaces, and ends the head.
    mutating func writeResponseHead(_ head: HTTPResponse, framing: ResponseFraming) {
        writeStaticString("HTTP/1.1 ")
        writeString(String(head.status.code))
        writeStaticString(" ")
        writeString(head.status.reasonPhrase)
        writeStaticString("\r\n")
        for field in head.headerFields {
            if framing.drops(field.name) { continue }
            writeString(field.name.rawName)
            writeStaticString(": ")
            writeString(field.value)
            writeStaticString("\r\n")
        }
        if framing == .chunked { writeStaticString("transfer-encoding: chunked\r\n") }
        writeStaticString("\r\n")
    }
}

/// How an answer's body is delimited on the client's connection, chosen as SwiftNIO's HTTP/1
/// encoder chooses it: none for a status that has no body (1xx, 204, 304) or an answer to
/// `CONNECT` (both framing fields dropped); the answer's `Content-Length` when it has one (any
/// `Transfer-Encoding` dropped); otherwise chunks.
enum ResponseFraming: Equatable {
    case none
    case contentLength
    case chunked

    /// The framing of `head`, answering a request whose method is `method`.
    init(_ head: HTTPResponse, answering method: HTTPMethod?) {
        let code = head.status.code
        if method == .CONNECT || (100..<200).contains(code) || code == 204 || code == 304 {
            self = .none
        } else if head.headerFields.contains(.contentLength) {
            self = .contentLength
        } else {
            self = .chunked
        }
    }

    /// A field this framing leaves out of the head as it was given.
    func drops(_ name: HTTPField.Name) -> Bool {
        switch self {
        case .none: name == .contentLength || name == .transferEncoding
        case .contentLength, .chunked: name == .transferEncoding
        }
    }
}

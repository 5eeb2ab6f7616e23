import CLibCurl
import CurlShims
import HTTPTypes
import MultiAuthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of one libcurl transfer, reached from its C callbacks through an unmanaged
/// pointer. It lives for the duration of `run`, which is synchronous.
final class Transfer: @unchecked Sendable {
    private let request: HTTPRequest
    private let body: OutgoingBody
    private let destination: ResponseDestination
    private let url: String
    private let cancelled = Atomic<Bool>(false)
    private var headerLines: [String] = []
    private var received: [UInt8] = []
    private var uploadBytes: [UInt8] = []
    private var uploadOffset = 0
    private var uploadDescriptor: Int32 = -1
    private var uploadLength = 0
    private var uploaded = 0
    private var uploadReader: (any BodyReader)?
    private var bodyError: BodyError?
    private var outputDescriptor: Int32 = -1
    private var ownsOutputDescriptor = false
    private var outputError: Int32 = 0
    /// True once the current response's body goes to the output rather than to memory.
    private var streaming = false
    private var delivered = 0
    private var tooLarge = false
    /// The reader of a relayed response, and whether it stopped taking chunks.
    private var relay: ResponseRelay?
    private var relayReaderGone = false

    init(request: HTTPRequest, body: OutgoingBody, destination: ResponseDestination) throws(HTTPTransportError) {
        self.request = request
        self.body = body
        self.destination = destination
        url = request.wireURL
        switch body {
        case .empty: break
        case .bytes(let bytes):
            uploadBytes = bytes
            uploadLength = bytes.count
        case .file(let path):
            uploadDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard uploadDescriptor >= 0 else {
                throw .body(.unreadable(body: body.name, reason: String(cString: strerror(errno))))
            }
            var info = stat()
            fstat(uploadDescriptor, &info)
            uploadLength = Int(info.st_size)
        case .stream(let stream):
            do { uploadReader = try stream.open() } catch { throw .body(error) }
            uploadLength = stream.length
        }
        switch destination {
        case .memory: break
        case .relay(let relay): self.relay = relay
        case .descriptor(let descriptor, _): outputDescriptor = descriptor
        case .file(let file):
            outputDescriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            ownsOutputDescriptor = true
            guard outputDescriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                if uploadDescriptor >= 0 { close(uploadDescriptor) }
                throw .unwritableResponseFile(path: file, reason: reason)
            }
        }
    }

    deinit {
        if uploadDescriptor >= 0 { close(uploadDescriptor) }
        if ownsOutputDescriptor, outputDescriptor >= 0 { close(outputDescriptor) }
    }

    /// The most bytes kept in memory for the current response.
    private var memoryLimit: Int {
        if case .memory(let limit) = destination { return limit }
        return ResponseDestination.defaultMemoryLimit
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    func run(on handle: UnsafeMutableRawPointer, options: CurlHTTPClient.Options) -> Result<ReceivedResponse, HTTPTransportError> {
        var headerList = curlHeaderList()
        defer { multiauth_curl_slist_free_all(headerList) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        do { try configure(handle, options: options, context: context, headers: &headerList) } catch { return .failure(error) }
        let code = multiauth_curl_easy_perform(handle)
        if outputError != 0 {
            let path = if case .file(let path) = destination { path } else { "standard output" }
            return .failure(.unwritableResponseFile(path: path, reason: String(cString: strerror(outputError))))
        }
        if tooLarge { return .failure(.responseTooLarge(host: request.authority ?? "", limit: memoryLimit)) }
        if relayReaderGone { return .failure(.interrupted(host: request.authority ?? "", delivered: delivered, reason: "the response's reader stopped")) }
        guard code == CURLE_OK else {
            let failure = error(for: code)
            // Once a relayed head has gone on, nothing may be retried: the reader has it.
            if streaming, relay != nil { return .failure(.interrupted(host: request.authority ?? "", delivered: delivered, reason: "\(failure)")) }
            guard delivered > 0 else { return .failure(failure) }
            switch failure.kind {
            case .connectionReset(_, let reason), .protocolFailure(_, let reason):
                return .failure(.interrupted(host: request.authority ?? "", delivered: delivered, reason: reason))
            default: return .failure(failure)
            }
        }
        var status = 0
        let info = multiauth_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard info == CURLE_OK else { return .failure(.protocolFailure(host: request.authority ?? "", reason: "no response code")) }
        guard (100...999).contains(status) else { return .failure(.protocolFailure(host: request.authority ?? "", reason: "no valid status code (\(status))")) }
        return .success(ReceivedResponse(head: HTTPResponse(status: .init(code: status), headerFields: parsedHeaders()), body: received, streamed: streaming))
    }

    // MARK: configuration

    private func configure(
        _ handle: UnsafeMutableRawPointer, options: CurlHTTPClient.Options, context: UnsafeMutableRawPointer,
        headers: inout UnsafeMutablePointer<curl_slist>?
    ) throws(HTTPTransportError) {
        try check(multiauth_curl_setopt_string(handle, CURLOPT_URL, url), "CURLOPT_URL")
        try check(multiauth_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue), "CURLOPT_CUSTOMREQUEST")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_PATH_AS_IS, 1), "CURLOPT_PATH_AS_IS")
        // Only http and https, whatever a configuration or discovery document names; redirects too.
        try check(multiauth_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try check(multiauth_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "CURLOPT_REDIR_PROTOCOLS_STR")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "CURLOPT_HTTP_VERSION")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)), "CURLOPT_CONNECTTIMEOUT_MS")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(options.totalTimeout)), "CURLOPT_TIMEOUT_MS")
        let stall = Self.milliseconds(options.stallTimeout) / 1000
        try check(multiauth_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, stall > 0 ? 1 : 0), "CURLOPT_LOW_SPEED_LIMIT")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(stall, 1)), "CURLOPT_LOW_SPEED_TIME")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, options.verifiesTLS ? 1 : 0), "CURLOPT_SSL_VERIFYPEER")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, options.verifiesTLS ? 2 : 0), "CURLOPT_SSL_VERIFYHOST")
        if let bundle = options.caBundle { try check(multiauth_curl_setopt_string(handle, CURLOPT_CAINFO, bundle), "CURLOPT_CAINFO") }
        try check(multiauth_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers), "CURLOPT_HTTPHEADER")
        if request.method == .head { try check(multiauth_curl_setopt_long(handle, CURLOPT_NOBODY, 1), "CURLOPT_NOBODY") }
        if case .empty = body {} else {
            try check(multiauth_curl_setopt_long(handle, CURLOPT_POST, 1), "CURLOPT_POST")
            try check(multiauth_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, uploadLength), "CURLOPT_POSTFIELDSIZE_LARGE")
            try check(multiauth_curl_setopt_data_callback(handle, CURLOPT_READFUNCTION, readCallback), "CURLOPT_READFUNCTION")
            try check(multiauth_curl_setopt_pointer(handle, CURLOPT_READDATA, context), "CURLOPT_READDATA")
        }
        try check(multiauth_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback), "CURLOPT_WRITEFUNCTION")
        try check(multiauth_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(multiauth_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback), "CURLOPT_HEADERFUNCTION")
        try check(multiauth_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "CURLOPT_NOPROGRESS")
        try check(multiauth_curl_setopt_progress_callback(handle, progressCallback), "CURLOPT_XFERINFOFUNCTION")
        try check(multiauth_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "CURLOPT_XFERINFODATA")
    }

    /// A duration in whole milliseconds for libcurl: non-finite or negative is 0 (none), and
    /// anything beyond a day is a day, so no value can trap on conversion.
    static func milliseconds(_ span: Duration) -> Int {
        guard span > .zero else { return 0 }
        return Int(min(span, .seconds(86_400)).inSeconds * 1000)
    }

    /// Every option is checked: an option libcurl refuses (an old libcurl, a build without
    /// HTTP/2 or a TLS backend) fails the request instead of sending something else.
    private func check(_ code: CURLcode, _ option: String) throws(HTTPTransportError) {
        guard code == CURLE_OK else {
            throw .protocolFailure(host: request.authority ?? "", reason: "libcurl refused \(option): \(String(cString: multiauth_curl_easy_strerror(code)))")
        }
    }

    /// The request's headers, plus empty ones that stop libcurl from adding its own
    /// `Expect`, `Accept` and `Content-Type` (an empty `Name:` removes a header in libcurl).
    private func curlHeaderList() -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headerFields {
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            let name = field.name.rawName
            let line = field.value.isEmpty ? "\(name);" : "\(name): \(field.value)"
            list = multiauth_curl_slist_append(list, line)
        }
        for name in [HTTPField.Name.expect, .accept, .contentType] where !request.headerFields.contains(name) {
            list = multiauth_curl_slist_append(list, "\(name.rawName):")
        }
        return list
    }

    // MARK: callbacks

    fileprivate func receiveBody(_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard streaming else {
            guard received.count + count <= memoryLimit else {
                tooLarge = true
                return 0
            }
            buffer.withMemoryRebound(to: UInt8.self, capacity: count) { received.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
            return count
        }
        if let relay {
            let chunk = buffer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
            guard relay.writeBlocking(chunk) else {
                relayReaderGone = true
                return 0
            }
        } else {
            guard emit(buffer, count) else { return 0 }
        }
        delivered += count
        return count
    }

    /// Writes all of `count` bytes to the output; false (with `outputError` set) when it fails.
    private func emit(_ buffer: UnsafePointer<CChar>, _ count: Int) -> Bool {
        var offset = 0
        while offset < count {
            let written = write(outputDescriptor, buffer + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                outputError = errno
                return false
            }
            offset += written
        }
        return true
    }

    fileprivate func receiveHeader(_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        let line = buffer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") { headerLines.removeAll() }  // a new response (after 100 or a redirect)
        headerLines.append(line)
        if line == "\r\n" || line == "\n" { return headComplete() ? count : 0 }
        return count
    }

    /// At the end of a head: a final response whose status is below 400 streams its body to
    /// the output, after the preamble (if any); anything else stays in memory.
    private func headComplete() -> Bool {
        // Trailers end with a blank line too: the preamble goes out once.
        guard !streaming else { return true }
        let status = headerLines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        guard status >= 200, outputDescriptor >= 0 || relay != nil, status < 400 else { return true }
        streaming = true
        if let relay {
            relay.begin(HTTPResponse(status: .init(code: status), headerFields: parsedHeaders()))
            return true
        }
        guard case .descriptor(_, let preamble?) = destination else { return true }
        let bytes = preamble(HTTPResponse(status: .init(code: status), headerFields: parsedHeaders()))
        return bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in characters.baseAddress.map { emit($0, characters.count) } ?? true }
        }
    }

    fileprivate func provideBody(_ buffer: UnsafeMutablePointer<CChar>, _ capacity: Int) -> Int {
        let count = nextBodyBytes(buffer, min(capacity, uploadLength - uploaded))
        guard count >= 0 else { return Int(CURL_READFUNC_ABORT) }
        if count == 0, uploaded < uploadLength {
            bodyError = .shorterThanAnnounced(body: body.name, announced: uploadLength, produced: uploaded)
            return Int(CURL_READFUNC_ABORT)
        }
        uploaded += count
        return count
    }

    /// Up to `capacity` next bytes of the body; -1 (with `bodyError` set) when it cannot be read.
    private func nextBodyBytes(_ buffer: UnsafeMutablePointer<CChar>, _ capacity: Int) -> Int {
        guard capacity > 0 else { return 0 }
        if let uploadReader {
            do { return try uploadReader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) } catch {
                bodyError = error
                return -1
            }
        }
        if uploadDescriptor >= 0 {
            while true {
                let count = read(uploadDescriptor, buffer, capacity)
                if count < 0 && errno == EINTR { continue }
                if count < 0 { bodyError = .unreadable(body: body.name, reason: String(cString: strerror(errno))) }
                return count
            }
        }
        let count = min(capacity, uploadBytes.count - uploadOffset)
        uploadBytes.withUnsafeBufferPointer { source in
            guard let start = source.baseAddress else { return }
            buffer.withMemoryRebound(to: UInt8.self, capacity: count) { $0.update(from: start + uploadOffset, count: count) }
        }
        uploadOffset += count
        return count
    }

    fileprivate var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    // MARK: results

    private func parsedHeaders() -> HTTPFields {
        var fields = HTTPFields()
        for line in headerLines.dropFirst() {
            let trimmed = line.trimmingLineEnd()
            guard let colon = trimmed.firstIndex(of: ":"), let name = HTTPField.Name(String(trimmed[..<colon])) else { continue }
            let value = trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            fields.append(HTTPField(name: name, value: String(value)))
        }
        return fields
    }

    private func error(for code: CURLcode) -> HTTPTransportError {
        let host = request.authority ?? ""
        let reason = String(cString: multiauth_curl_easy_strerror(code))
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where isCancelled: return .cancelled
        // libcurl also says "unsupported protocol" of an http(s) answer that is not HTTP
        // (HTTP/0.9, another protocol on the port): the server's fault, not the URL's.
        case CURLE_UNSUPPORTED_PROTOCOL where ["http", "https"].contains(request.scheme?.lowercased()):
            return .protocolFailure(host: host, reason: "the answer is not HTTP/1.1 or HTTP/2")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL(url)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed(host: host, reason: reason)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut(host: host)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return .tlsFailure(host: host, reason: reason)
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:  // the read callback gave up on the body
            if let bodyError { return .body(bodyError) }
            return .protocolFailure(host: host, reason: reason)
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR: return .connectionReset(host: host, reason: reason)
        default: return .protocolFailure(host: host, reason: "\(reason) (libcurl \(code.rawValue))")
        }
    }
}

extension String {
    fileprivate func trimmingLineEnd() -> Substring {
        var end = endIndex
        while end > startIndex, ["\n", "\r", "\r\n"].contains(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}

// C callbacks: recover the Transfer from the context pointer and forward.

private let writeCallback: multiauth_curl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().receiveBody(buffer, size * count)
}

private let headerCallback: multiauth_curl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(buffer, size * count)
}

private let readCallback: multiauth_curl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().provideBody(buffer, size * count)
}

private let progressCallback: multiauth_curl_progress_callback = { context, _, _, _, _ in
    guard let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
}

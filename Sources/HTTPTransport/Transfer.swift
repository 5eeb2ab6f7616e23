import CLibCurl
import CurlShims
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
    private let cancelled = Atomic<Bool>(false)
    private var headerLines: [String] = []
    private var body: [UInt8] = []
    private var uploadBytes: [UInt8] = []
    private var uploadOffset = 0
    private var uploadDescriptor: Int32 = -1
    private var uploadLength = 0
    private var uploadStream: (any HTTPBodyStream)?
    private var streamError: HTTPBodyStreamError?
    private var outputDescriptor: Int32 = -1
    private var outputError: Int32 = 0

    init(request: HTTPRequest) throws(HTTPError) {
        self.request = request
        switch request.body {
        case .none: break
        case .bytes(let bytes):
            uploadBytes = bytes
            uploadLength = bytes.count
        case .file(let path):
            uploadDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard uploadDescriptor >= 0 else {
                throw .unreadableBody(path: path, reason: String(cString: strerror(errno)))
            }
            var info = stat()
            fstat(uploadDescriptor, &info)
            uploadLength = Int(info.st_size)
        case .stream(let stream):
            uploadStream = stream
            uploadLength = stream.length
        }
        if let file = request.responseFile {
            outputDescriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard outputDescriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                if uploadDescriptor >= 0 { close(uploadDescriptor) }
                throw .unwritableResponseFile(path: file, reason: reason)
            }
        }
    }

    deinit {
        if uploadDescriptor >= 0 { close(uploadDescriptor) }
        if outputDescriptor >= 0 { close(outputDescriptor) }
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    func run(on handle: UnsafeMutableRawPointer, options: CurlHTTPClient.Options) -> Result<HTTPResponse, HTTPError> {
        var headerList = curlHeaderList()
        defer { curl_slist_free_all(headerList) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        do { try configure(handle, options: options, context: context, headers: &headerList) } catch { return .failure(error) }
        let code = curl_easy_perform(handle)
        if outputError != 0 {
            return .failure(.unwritableResponseFile(path: request.responseFile ?? "", reason: String(cString: strerror(outputError))))
        }
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var status = 0
        let info = multiauth_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard info == CURLE_OK else { return .failure(.transport(code: Int(info.rawValue), reason: "no response code")) }
        return .success(HTTPResponse(status: status, headers: parsedHeaders(), body: body))
    }

    // MARK: configuration

    private func configure(
        _ handle: UnsafeMutableRawPointer, options: CurlHTTPClient.Options, context: UnsafeMutableRawPointer,
        headers: inout UnsafeMutablePointer<curl_slist>?
    ) throws(HTTPError) {
        try check(multiauth_curl_setopt_string(handle, CURLOPT_URL, request.url), "CURLOPT_URL")
        try check(multiauth_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method), "CURLOPT_CUSTOMREQUEST")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_PATH_AS_IS, 1), "CURLOPT_PATH_AS_IS")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "CURLOPT_HTTP_VERSION")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(options.totalTimeout * 1000)), "CURLOPT_TIMEOUT_MS")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, options.verifiesTLS ? 1 : 0), "CURLOPT_SSL_VERIFYPEER")
        try check(multiauth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, options.verifiesTLS ? 2 : 0), "CURLOPT_SSL_VERIFYHOST")
        if let bundle = options.caBundle { try check(multiauth_curl_setopt_string(handle, CURLOPT_CAINFO, bundle), "CURLOPT_CAINFO") }
        try check(multiauth_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers), "CURLOPT_HTTPHEADER")
        if request.method == "HEAD" { try check(multiauth_curl_setopt_long(handle, CURLOPT_NOBODY, 1), "CURLOPT_NOBODY") }
        if request.body != .none {
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

    /// Every option is checked: an option libcurl refuses (an old libcurl, a build without
    /// HTTP/2 or a TLS backend) fails the request instead of sending something else.
    private func check(_ code: CURLcode, _ option: String) throws(HTTPError) {
        guard code == CURLE_OK else {
            throw .transport(code: Int(code.rawValue), reason: "libcurl refused \(option): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// The request's headers, plus empty ones that stop libcurl from adding its own
    /// `Expect`, `Accept` and `Content-Type` (an empty `Name:` removes a header in libcurl).
    private func curlHeaderList() -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            list = curl_slist_append(list, line)
        }
        for name in ["Expect", "Accept", "Content-Type"]
        where !request.headers.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            list = curl_slist_append(list, "\(name):")
        }
        return list
    }

    // MARK: callbacks

    fileprivate func receiveBody(_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard outputDescriptor >= 0 else {
            buffer.withMemoryRebound(to: UInt8.self, capacity: count) { body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
            return count
        }
        var offset = 0
        while offset < count {
            let written = write(outputDescriptor, buffer + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                outputError = errno
                return 0
            }
            offset += written
        }
        return count
    }

    fileprivate func receiveHeader(_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        let line = buffer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") { headerLines.removeAll() }  // a new response (after 100 or a redirect)
        headerLines.append(line)
        return count
    }

    fileprivate func provideBody(_ buffer: UnsafeMutablePointer<CChar>, _ capacity: Int) -> Int {
        if let uploadStream {
            do { return try uploadStream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) } catch {
                streamError = error
                return Int(CURL_READFUNC_ABORT)
            }
        }
        if uploadDescriptor >= 0 {
            while true {
                let count = read(uploadDescriptor, buffer, capacity)
                if count < 0 && errno == EINTR { continue }
                return count < 0 ? Int(CURL_READFUNC_ABORT) : count
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

    private func parsedHeaders() -> [HTTPHeader] {
        headerLines.dropFirst().compactMap { line in
            let trimmed = line.trimmingLineEnd()
            guard let colon = trimmed.firstIndex(of: ":") else { return nil }
            let value = trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            return HTTPHeader(name: String(trimmed[..<colon]), value: String(value))
        }
    }

    private func error(for code: CURLcode) -> HTTPError {
        let host = hostOf(request.url)
        let reason = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where isCancelled: return .cancelled
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL(request.url)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed(host: host, reason: reason)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut(host: host)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return .tlsFailure(host: host, reason: reason)
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:  // the read callback gave up on the body file
            if case .file(let path) = request.body { return .unreadableBody(path: path, reason: reason) }
            if let streamError { return .unreadableBody(path: "the streamed body", reason: streamError.reason) }
            return .transport(code: Int(code.rawValue), reason: reason)
        default: return .transport(code: Int(code.rawValue), reason: reason)
        }
    }
}

private func hostOf(_ url: String) -> String {
    guard let start = url.firstRange(of: "://")?.upperBound else { return url }
    return String(url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
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

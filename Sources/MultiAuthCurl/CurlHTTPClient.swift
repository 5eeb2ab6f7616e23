import CLibCurl
import CurlShims
public import HTTPTypes
public import MultiAuthCore
import Synchronization

/// An ``HTTPSender`` on libcurl: connection reuse through a pool of easy handles, HTTP/1.1
/// and HTTP/2, TLS verification on by default, proxies from the usual environment
/// variables, bodies streamed from files, and cancellation. Each transfer runs on a
/// dispatch queue thread, never on the cooperative pool.
///
/// What is signed is what is sent: libcurl's own `Expect: 100-continue`, default `Accept`
/// and form `Content-Type` are suppressed unless the request carries them itself.
public final class CurlHTTPClient: HTTPSender {
    /// Transport settings.
    public typealias Options = SenderOptions

    private let options: Options
    private let idleHandles = Mutex<[HandleBox]>([])

    private struct HandleBox: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    /// Creates a client. libcurl itself is loaded at the first request, not here.
    public init(options: Options = Options()) {
        self.options = options
    }

    deinit {
        // Handles exist only once libcurl was loaded.
        for box in idleHandles.withLock({ $0 }) { multiauth_curl_easy_cleanup(box.handle) }
    }

    public func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
        let transfer = try Transfer(request: request, body: body, destination: responseBody)
        let result = await withTaskCancellationHandler { () async -> Result<ReceivedResponse, HTTPTransportError> in
            do throws(HTTPTransportError) { return .success(try await runBlocking { self.perform(transfer) }) } catch { return .failure(error) }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }

    private func perform(_ transfer: Transfer) -> Result<ReceivedResponse, HTTPTransportError> {
        if let problem = multiauth_curl_load() { return .failure(.protocolFailure(host: "", reason: String(cString: problem))) }
        let handle = idleHandles.withLock { $0.popLast()?.handle } ?? multiauth_curl_easy_init()
        guard let handle else { return .failure(.protocolFailure(host: "", reason: "curl_easy_init failed")) }
        defer {
            multiauth_curl_easy_reset(handle)
            idleHandles.withLock { $0.append(HandleBox(handle: handle)) }
        }
        return transfer.run(on: handle, options: options)
    }
}

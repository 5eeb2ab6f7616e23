public import AsyncHTTPClient
public import HTTPTypes
public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthNIOBodies
import NIOCore
import NIOPosix
import NIOSSL

/// An `HTTPSender` on AsyncHTTPClient: for a process that already runs
/// SwiftNIO (a Hummingbird service, the proxy and gateway), so transfers share its event loops
/// and connection pool instead of taking a thread each, as the libcurl sender does.
///
/// What is signed is what is sent: the request target goes out byte for byte (a target
/// Foundation's URL parsing would alter is refused, never rewritten), `Host` is the request's
/// authority, redirects are never followed and bodies are never decompressed. AsyncHTTPClient
/// writes `Content-Length` from the body, as every transport must. AsyncHTTPClient gets no
/// logger: its traces are not redacted, and ours name each failure already.
public final class AsyncHTTPClientSender: HTTPSender {
    /// Transport settings, the same as `CurlHTTPClient`'s.
    public typealias Options = SenderOptions

    private let client: HTTPClient
    private let ownsClient: Bool
    private let totalTimeout: Duration

    /// Creates a sender with its own `HTTPClient` on NIO's shared event loop group; call
    /// ``shutdown()`` when done with it. `connectionsPerHost` is how many HTTP/1.1 connections
    /// to one host it keeps open for requests in flight at once (AsyncHTTPClient's default is
    /// 8); requests beyond that wait for a connection to come free.
    public init(options: Options = Options(), connectionsPerHost: Int = 8) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, connectionsPerHost)
        configuration.timeout = HTTPClient.Configuration.Timeout(
            connect: Self.amount(options.connectTimeout), read: Self.amount(options.stallTimeout))
        // A refused connection fails the call at once, as with libcurl, instead of being retried
        // until the connect timeout: callers retry transient failures themselves, and a
        // gateway answers 502 for an upstream that is down without holding the client 10 s.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tlsConfiguration = Self.tls(options)
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        ownsClient = true
        totalTimeout = options.totalTimeout
    }

    /// Creates a sender on an `HTTPClient` the caller owns (and shuts down). Configure it not
    /// to follow redirects or decompress, or what is received is not what the server sent.
    public init(client: HTTPClient, totalTimeout: Duration = .zero) {
        self.client = client
        ownsClient = false
        self.totalTimeout = totalTimeout
    }

    /// Shuts down the client this sender created; a no-op for a caller's client.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    public func send(_ request: HTTPRequest, body: OutgoingBody, responseBody: ResponseDestination) async throws(HTTPTransportError) -> ReceivedResponse {
        let host = request.authority ?? ""
        let (outgoing, source) = try OutgoingRequest.make(request, body: body)
        let sink = try await ResponseSink.open(responseBody, host: host)
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            return try await sink.receive(response)
        } catch {
            if let failure = source?.failure { throw .body(failure) }
            let failure = TransportFailure.map(error, host: host, delivered: sink.delivered)
            // Once a relayed head has gone on, nothing may be retried: the reader has it.
            if sink.relayed, failure.isTransient {
                throw .interrupted(host: host, delivered: sink.delivered, reason: "\(failure)")
            }
            throw failure
        }
    }

    private var deadline: NIODeadline {
        totalTimeout > .zero ? .now() + .nanoseconds(Int64(min(totalTimeout, .seconds(86_400)).inSeconds * 1e9)) : .distantFuture
    }

    private static func tls(_ options: Options) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caBundle = options.caBundle { tls.trustRoots = .file(caBundle) }
        if !options.verifiesTLS { tls.certificateVerification = .none }
        return tls
    }

    private static func amount(_ span: Duration) -> TimeAmount? {
        span > .zero ? .nanoseconds(Int64(min(span, .seconds(86_400)).inSeconds * 1e9)) : nil
    }
}

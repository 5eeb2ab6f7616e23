import AsyncHTTPClient
import HTTPTypes
import MultiAuthCore
import MultiAuthNIOBodies
import MultiAuthHTTP
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// Where one response goes, as `ResponseDestination` says: a final status
/// below 400 streams to the file or descriptor (after the preamble); anything else is kept
/// in memory up to its limit.
final class ResponseSink {
    private let destination: ResponseDestination
    private let host: String
    private var descriptor: Int32 = -1
    private var ownsDescriptor = false
    /// Body bytes already written to the file or descriptor, or taken by the relay's reader.
    private(set) var delivered = 0
    /// True once a relayed response's head has gone to the reader: nothing may be retried.
    private(set) var relayed = false

    private init(destination: ResponseDestination, host: String) {
        self.destination = destination
        self.host = host
    }

    /// A sink for `destination`; a response file is created (0644) or truncated now, before
    /// the request is sent, as with the libcurl sender.
    static func open(_ destination: ResponseDestination, host: String) async throws(HTTPTransportError) -> ResponseSink {
        let sink = ResponseSink(destination: destination, host: host)
        switch destination {
        case .memory, .relay: break
        case .descriptor(let descriptor, _): sink.descriptor = descriptor
        case .file(let path):
            sink.descriptor = try await runOnThreadPool { () -> Result<Int32, HTTPTransportError> in
                let descriptor = openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { return .failure(.unwritableResponseFile(path: path, reason: String(cString: strerror(errno)))) }
                return .success(descriptor)
            }
            sink.ownsDescriptor = true
        }
        return sink
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The response, its body kept or streamed.
    func receive(_ response: HTTPClientResponse) async throws -> ReceivedResponse {
        let head = HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: HTTPFields(http1: response.headers))
        if case .relay(let relay) = destination, (200..<400).contains(head.status.code) { return try await pass(response, head: head, to: relay) }
        guard descriptor >= 0, (200..<400).contains(head.status.code) else {
            return ReceivedResponse(head: head, body: try await collect(response.body))
        }
        if case .descriptor(_, let preamble?) = destination { try await write(ByteBuffer(bytes: preamble(head))) }
        for try await chunk in response.body {
            try await write(chunk)
            delivered += chunk.readableBytes
        }
        return ReceivedResponse(head: head, body: [], streamed: true)
    }

    private func pass(_ response: HTTPClientResponse, head: HTTPResponse, to relay: ResponseRelay) async throws -> ReceivedResponse {
        relay.begin(head)
        relayed = true
        for try await chunk in response.body {
            guard await relay.write(Array(chunk.readableBytesView)) else {
                throw HTTPTransportError.interrupted(host: host, delivered: delivered, reason: "the response's reader stopped")
            }
            delivered += chunk.readableBytes
        }
        return ReceivedResponse(head: head, body: [], streamed: true)
    }

    private func collect(_ body: HTTPClientResponse.Body) async throws -> [UInt8] {
        let limit = if case .memory(let limit) = destination { limit } else { ResponseDestination.defaultMemoryLimit }
        do { return Array(try await body.collect(upTo: limit).readableBytesView) } catch is NIOTooManyBytesError {
            throw HTTPTransportError.responseTooLarge(host: host, limit: limit)
        }
    }

    private func write(_ chunk: ByteBuffer) async throws(HTTPTransportError) {
        let descriptor = descriptor
        let name = if case .file(let path) = destination { path } else { "standard output" }
        try await runOnThreadPool { () -> Result<Void, HTTPTransportError> in
            guard let failure = chunk.withUnsafeReadableBytes({ writeFully(descriptor, $0) }) else { return .success(()) }
            return .failure(.unwritableResponseFile(path: name, reason: String(cString: strerror(failure))))
        }
    }
}

private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }

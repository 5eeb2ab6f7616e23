import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCurl
import Testing

/// ``ResponseRelay`` on its own: what the sender hands over arrives in order and whole, and
/// either side stopping is seen by the other.
@Suite(.timeLimit(.minutes(5))) struct ResponseRelayTests {
    struct Broken: Error, Equatable {}

    @Test func chunksArriveInOrderAfterTheHead() async throws {
        let relay = ResponseRelay()
        let writer = Task {
            relay.begin(HTTPResponse(status: .ok, headerFields: [.contentLength: "6"]))
            for chunk in [[1, 2], [3], [4, 5, 6]] as [[UInt8]] { #expect(await relay.write(chunk)) }
            relay.end()
        }
        guard case .streaming(let head) = await relay.start() else { Issue.record("no head"); return }
        #expect(head.status == .ok && head.headerFields[.contentLength] == "6")
        var received: [[UInt8]] = []
        while let chunk = try await relay.next() { received.append(chunk) }
        #expect(received == [[1, 2], [3], [4, 5, 6]])
        await writer.value
    }

    @Test func anExchangeThatEndsWithoutAHeadIsNotStreamed() async throws {
        let relay = ResponseRelay()
        relay.end(failure: Broken())
        guard case .notStreamed = await relay.start() else { Issue.record("streamed"); return }
        await #expect(throws: Broken.self) { try await relay.next() }
    }

    @Test func aFailureAfterTheHeadReachesTheReader() async throws {
        let relay = ResponseRelay()
        let writer = Task {
            relay.begin(HTTPResponse(status: .ok))
            _ = await relay.write([1])
            relay.end(failure: Broken())
        }
        _ = await relay.start()
        #expect(try await relay.next() == [1])
        await #expect(throws: Broken.self) { try await relay.next() }
        await writer.value
    }

    @Test func aReaderThatStopsFailsTheWaitingWriteAndEveryLaterOne() async throws {
        let relay = ResponseRelay()
        relay.begin(HTTPResponse(status: .ok))
        let first = Task { await relay.write([1]) }
        // The write waits until the chunk is taken or refused: cancelling refuses it.
        while !relay.isHoldingAChunk { await Task.yield() }
        relay.cancel()
        #expect(await first.value == false)
        #expect(await relay.write([2]) == false)
    }

    @Test func aBlockingWriterOnItsOwnThreadFeedsAnAsyncReader() async throws {
        let relay = ResponseRelay()
        let chunks = (0..<50).map { [UInt8(truncatingIfNeeded: $0)] }
        let thread = Thread {
            relay.begin(HTTPResponse(status: .ok))
            for chunk in chunks { _ = relay.writeBlocking(chunk) }
            relay.end()
        }
        thread.start()
        _ = await relay.start()
        var received: [[UInt8]] = []
        while let chunk = try await relay.next() { received.append(chunk) }
        #expect(received == chunks)
    }
}

import Hummingbird
import NIOCore

/// The body of a request an exchange decides on, handed from the client's connection
/// to the decision as it arrives. The decision's reading paces the connection: past a few
/// chunks not yet taken, the handler stops reading from the client until more are wanted.
///
/// Used on the connection's event loop only.
final class InboundBodyStream {
    private typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Demand
    >

    private let source: Producer.Source
    /// The body as the decision reads it.
    let body: RequestBody
    /// The decision holds enough: reading from the client waits.
    private(set) var paused = false

    /// A stream whose demand for more calls `handler`'s `bodyWanted()` on `loop`.
    init(loop: any EventLoop, handler: ForwardingHandler) {
        let made = Producer.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false,
            delegate: Demand(loop: loop, handler: NIOLoopBound(handler, eventLoop: loop)))
        source = made.source
        body = RequestBody(asyncSequence: made.sequence)
    }

    /// Passes on one chunk from the client.
    func take(_ chunk: ByteBuffer) {
        if case .stopProducing = source.yield(chunk) { paused = true }
    }

    /// The decision wants more.
    func resume() { paused = false }

    /// The body ended.
    func end() { source.finish() }

    /// The client's connection ended before the body did.
    func fail(_ error: any Error) { source.finish(error) }

    /// Tells the handler, on its loop, that the decision wants more of the body.
    private struct Demand: NIOAsyncSequenceProducerDelegate {
        let loop: any EventLoop
        let handler: NIOLoopBound<ForwardingHandler>

        func produceMore() {
            loop.execute { handler.value.bodyWanted() }
        }

        func didTerminate() {}
    }
}

@available(*, unavailable)
extension InboundBodyStream: Sendable {}

import NIOCore
import NIOPosix

/// Runs blocking work of the NIO side (an upload's chunks, the response sink, the access
/// log, usage counts) on the server stack's own pool, `NIOThreadPool.singleton`, never on a
/// cooperative thread or an event loop, and returns its result. As with `runBlocking` (the
/// pool of the products that link no NIO), the work runs to its end once started, and every
/// blocking wait in it has its own deadline.
package func runOnThreadPool<Success: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () -> Result<Success, Failure>
) async throws(Failure) -> Success {
    let future = NIOThreadPool.singleton.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) { work() }
    let result: Result<Success, Failure>
    do { result = try await future.get() } catch {
        // Only a pool that was shut down refuses work, and NIO never shuts its singleton down.
        preconditionFailure("NIOThreadPool.singleton refused work: \(error)")
    }
    return try result.get()
}

import Dispatch

/// Runs blocking work (file reads, `fsync`, `flock`, a libcurl transfer) on a dispatch queue
/// thread, never on a cooperative thread, and returns its result.
///
/// This is the one place MultiAuth leaves the cooperative pool; cancellation is the
/// caller's concern (pass a flag the work checks).
///
/// Each call gets its own serial queue, which libdispatch may give a new thread when the
/// others are blocked ("overcommit"). The global concurrent queue may not: on Linux it keeps
/// about one thread per core, so a few long blocking waits (a hung server, a lock) starved every
/// other caller. Under test load, an upload's next chunk waited past its 30 s deadline.
public func runBlocking<Success: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () -> Result<Success, Failure>
) async throws(Failure) -> Success {
    let result: Result<Success, Failure> = await withCheckedContinuation { continuation in
        DispatchQueue(label: "multiauth.blocking", qos: .userInitiated).async { continuation.resume(returning: work()) }
    }
    return try result.get()
}

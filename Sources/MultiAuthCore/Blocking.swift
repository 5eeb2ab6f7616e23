import Dispatch

/// Runs blocking work (file reads, `fsync`, `flock`, a libcurl transfer) on a dispatch queue
/// thread, never on a cooperative thread, and returns its result.
///
/// This is the one place MultiAuth leaves the cooperative pool; cancellation is the
/// caller's concern (pass a flag the work checks).
public func runBlocking<Success: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () -> Result<Success, Failure>
) async throws(Failure) -> Success {
    let result: Result<Success, Failure> = await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
    }
    return try result.get()
}

import MultiAuthCore

/// Runs blocking test work (waiting for a child process, reading its pipes) on a dispatch
/// thread through ``MultiAuthCore/runBlocking(_:)``.
///
/// A 2-core machine has two cooperative threads. Tests that waited for child processes on
/// them starved the code under test in suites running alongside: an AsyncHTTPClient upload
/// whose next chunk needed a cooperative thread stalled for as long as both were held, past
/// its 30 s deadline. Those waits also capped, by accident, how many tests ran at once;
/// `scripts/test` now caps it on purpose (`SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`).
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await runBlocking { Result { try body() } }
}

import MultiAuthCore

/// Runs blocking test work (waiting for a child process, reading its pipes) on a dispatch
/// thread through ``MultiAuthCore/runBlocking(_:)``, at most two at a time.
///
/// A 2-core machine has two cooperative threads. Tests that waited for child processes on
/// them starved the code under test in suites running alongside: an AsyncHTTPClient upload
/// whose next chunk needed a cooperative thread stalled for as long as both were held, past
/// its 30 s deadline. The limit keeps what those waits used to enforce by accident: no more
/// than two such jobs (usually `multiauth` processes) at once, so timing checks of the
/// processes are not run on an overloaded machine.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    await BlockingSlots.shared.acquire()
    do {
        let value = try await runBlocking { Result { try body() } }
        await BlockingSlots.shared.release()
        return value
    } catch {
        await BlockingSlots.shared.release()
        throw error
    }
}

/// A counting semaphore that suspends rather than blocks.
actor BlockingSlots {
    static let shared = BlockingSlots(2)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

import Dispatch
import MultiAuthCore
import Synchronization
import Testing

/// `runBlocking` must not starve: with many of its calls blocked (hung servers, locks held
/// elsewhere), the next call still gets a thread. On the global concurrent queue it waited for
/// one of them to finish (libdispatch keeps about one thread per core there).
@Suite(.timeLimit(.minutes(5))) struct BlockingTests {
    final class Started: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test func callsBlockedByTheDozenDoNotStarveTheNext() async throws {
        let gate = DispatchSemaphore(value: 0)
        let blocked = 32
        let started = Started()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    await runBlocking { () -> Result<Void, Never> in
                        started.count.add(1, ordering: .relaxed)
                        gate.wait()
                        return .success(())
                    }
                }
            }
            // Every blocked call gets a thread of its own (waited for, at most 20 s: on the
            // global queue only about one per core ever started), and one more call still runs
            // while they all hold theirs.
            for _ in 0..<2_000 where started.count.load(ordering: .relaxed) < blocked { try? await Task.sleep(for: .milliseconds(10)) }
            #expect(started.count.load(ordering: .relaxed) == blocked)
            if started.count.load(ordering: .relaxed) == blocked {
                #expect(await runBlocking { () -> Result<Int, Never> in .success(42) } == 42)
            }
            for _ in 0..<blocked { gate.signal() }
        }
    }
}

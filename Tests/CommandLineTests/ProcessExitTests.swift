import Foundation
import IntegrationSupport
import Testing

/// How `multiauth` processes end: with their documented exit code, never a crash, and never
/// with a core file that would write secrets in memory to disk.
@Suite(.timeLimit(.minutes(5)))
struct ProcessExitTests {
    /// A store command that fails at once used to segfault in 1–9% of runs: `exit` ran
    /// OpenSSL's clean-up while the warm-up thread was still inside `EVP_CIPHER_fetch`.
    /// 200 runs make a 1% crash rate show with 87% odds and a 5% rate with certainty.
    @Test func aStoreCommandThatFailsAtOnceExitsWithItsCodeEveryTime() async throws {
        var statuses: [Int32: Int] = [:]
        for _ in 0..<200 {
            let run = try await CLI.run(["token", "--store", "/nonexistent/store", "--key-file", "/nonexistent/key"], limit: 30)
            statuses[run.status, default: 0] += 1
        }
        #expect(statuses == [1: 200], "exit statuses and their counts: \(statuses)")
    }

    /// Both executables (the server one through `multiauth`'s hand-over) run with no core
    /// file allowed, whatever limit they were started with.
    @Test func aRunningProcessMayWriteNoCoreFile() throws {
        let proxy = try GatewayProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--auth", "api-key", "--api-key", "k",
        ])
        defer { _ = proxy.stop() }
        let line = try #require(proxy.limit("Max core file size"))
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields.suffix(3).prefix(2) == ["0", "0"], "\(line)")
    }
}

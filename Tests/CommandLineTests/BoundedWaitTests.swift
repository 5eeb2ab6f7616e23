import Foundation
import IntegrationSupport
import Testing

/// Every wait is bounded (issue 19, finding 4). The server here is scripts/peers/fault_server.py,
/// standing in for a backend that accepts connections and never answers. The limits checked are
/// correctness bounds with wide margins (a run that hangs is killed at `limit`), not speed.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.faultAvailable && Peers.available, Peers.reason)) struct BoundedWaitTests {
    static func timed(_ arguments: [String], environment: [String: String] = [:]) async throws -> (run: CLI.Run, seconds: Double) {
        let run = try await CLI.run(arguments, environment: environment, limit: 60)
        return (run, run.seconds)
    }

    /// With defaults, `request` waited forever on a silent server; now nothing moving for
    /// --speed-time seconds ends it with exit 28.
    @Test func aSilentServerEndsTheRequestWhenNothingMoves() async throws {
        let (run, seconds) = try await Self.timed(["request", Peers.fault + "/hang/a", "--speed-time", "2", "--retries", "1"])
        #expect(run.status == 28 && seconds < 30, "\(run.status) after \(seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("did not answer in time"), "\(run.stderr)")
    }

    /// --max-time bounded each attempt, not the command (about 10 s with retries).
    @Test func maxTimeBoundsTheWholeCommandWithItsRetries() async throws {
        let (run, seconds) = try await Self.timed(["request", Peers.fault + "/hang/b", "--max-time", "2", "--retries", "6"])
        #expect(run.status == 28, "\(run.stderr)")
        #expect(seconds < 6, "retries ran past --max-time: \(seconds) s")
        #expect(run.stderr.contains("timed out after 2 s (--max-time)") || run.stderr.contains("did not answer in time"), "\(run.stderr)")
    }

    /// `--token-command "sleep 1000" --max-time 3` ran for 1000 s; now the command is stopped
    /// with what it started, and no `sleep` is left behind.
    @Test func aHangingTokenCommandIsStoppedAtTheDeadline() async throws {
        let marker = "1000.\(Int.random(in: 100_000...999_999))"
        let (run, seconds) = try await Self.timed([
            "request", Peers.api + "/jwt/x", "--auth", "user-pools", "--token-command", "sleep \(marker); echo token", "--max-time", "2",
        ])
        #expect(run.status == 28 && seconds < 10, "\(run.status) after \(seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("--max-time"), "\(run.stderr)")
        try await Task.sleep(for: .milliseconds(500))  // the group's SIGKILL follows SIGTERM by 200 ms
        let left = try Self.processes(matching: marker)
        #expect(left.isEmpty, "left running: \(left)")
    }

    @Test func graphqlIsBoundedToo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-bounded-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = folder + "/awsconfiguration.json"
        try Data(#"{"AppSync": {"Default": {"ApiUrl": "\#(Peers.fault)/hang/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "k"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let (run, seconds) = try await Self.timed([
            "graphql", "--config", config, "--cache-dir", folder + "/cache", "--client", "Default", "--query", "query { a }", "--max-time", "2",
        ])
        #expect(run.status == 28 && seconds < 10, "\(run.status) after \(seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("the GraphQL call timed out after 2 s (--max-time)"), "\(run.stderr)")
    }

    /// `login oidc … --timeout 5` hung on an issuer that never answers.
    @Test func anOIDCLoginIsBoundedByItsTimeout() async throws {
        let (run, seconds) = try await Self.timed([
            "login", "oidc", "--issuer", Peers.fault + "/hang/issuer", "--client-id", "c", "--flow", "client-credentials", "--timeout", "2",
            "--path", FileManager.default.temporaryDirectory.appendingPathComponent("unused-\(UUID().uuidString)").path, "--key-file", "/nonexistent/k",
        ])
        #expect(run.status == 28 && seconds < 10, "\(run.status) after \(seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("(--timeout)"), "\(run.stderr)")
    }

    static func processes(matching text: String) throws -> String {
        var found: [String] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int(entry) != nil {
            guard let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let line = String(decoding: command.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            if line.contains(text) { found.append("\(entry): \(line)") }
        }
        return found.joined(separator: "; ")
    }
}

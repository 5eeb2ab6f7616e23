import Foundation
import HTTPTypes
import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// Response bodies go out as they arrive, and what is parsed in memory has a limit (issue 19,
/// finding 7). The server is scripts/peers/fault_server.py, standing in for a backend that
/// answers far more than anyone should hold (`/stream/N` sends N bytes).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.faultAvailable && Peers.available, Peers.reason)) struct StreamedResponseTests {
    static func measured(_ arguments: [String]) async throws -> (status: Int32, bytes: Int, maxRSSKiB: Int) {
        try await offPool { try measuredWaiting(arguments) }
    }

    private static func measuredWaiting(_ arguments: [String]) throws -> (status: Int32, bytes: Int, maxRSSKiB: Int) {
        let measure = Process()
        measure.executableURL = URL(fileURLWithPath: Paths.python)
        measure.arguments = Paths.pythonArguments + [
            Paths.repository.appendingPathComponent("scripts/peers/max_rss.py").path, "--count-output", Paths.multiauth.path,
        ] + arguments
        let output = Pipe()
        measure.standardOutput = output
        try measure.run()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        measure.waitUntilExit()
        return (measure.terminationStatus, Int(lines.first ?? "") ?? -1, Int(lines.last ?? "") ?? Int.max)
    }

    /// A 1 GiB answer written to standard output peaked at 2.1 GB; now it streams.
    @Test func aGibibyteAnswerStreamsToStandardOutputInFlatMemory() async throws {
        let size = 1 << 30
        let run = try await Self.measured(["request", Peers.fault + "/stream/\(size)", "-i"])
        #expect(run.status == 0)
        let head = "HTTP 200\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n"
        #expect(run.bytes == size + head.utf8.count, "got \(run.bytes) bytes")
        #expect(run.maxRSSKiB < 64 * 1024, "max RSS \(run.maxRSSKiB) KiB")
    }

    /// The library keeps at most 16 MiB of a body it is asked to hold (graphql, login, token
    /// endpoints all parse JSON from memory): a typed error, not a 1 GiB buffer.
    @Test func aBodyKeptInMemoryHasALimit() async throws {
        let request = try HTTPRequest(method: .get, wireURL: Peers.fault + "/stream/\(64 << 20)")
        await #expect {
            try await CurlHTTPClient().send(request)
        } throws: { error in
            guard case .responseTooLarge(_, let limit)? = (error as? HTTPTransportError)?.kind else { return false }
            return limit == 16 << 20
        }
        await #expect(throws: HTTPTransportError.self) {
            try await CurlHTTPClient().send(HTTPRequest(method: .get, wireURL: Peers.fault + "/stream/2048"), body: .empty, responseBody: .memory(limit: 1 << 10))
        }
    }

    /// An error body is never streamed: it comes back in memory, is printed once after the
    /// retries, and --fail keeps it out of the output.
    @Test func errorBodiesArePrintedOnceAfterTheRetries() async throws {
        let run = try await CLI.run(["request", Peers.fault + "/always500/x", "--retries", "2"])
        #expect(run.status == 0 && run.stdout == #"{"message": "Internal Server Error"}"#, "\(run.stdout)")
        let failed = try await CLI.run(["request", Peers.fault + "/always500/x", "--retries", "1", "--fail"])
        #expect(failed.status == 22 && failed.stdout.isEmpty)
    }

    /// `graphql` buffered a 1 GiB non-JSON answer whole; now it stops at the 16 MiB limit.
    @Test func graphqlStopsAtTheMemoryLimit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-big-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = folder + "/awsconfiguration.json"
        try Data(#"{"AppSync": {"Default": {"ApiUrl": "\#(Peers.fault)/stream/1073741824", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "k"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let run = try await CLI.run(["graphql", "--config", config, "--cache-dir", folder + "/cache", "--client", "Default", "--query", "query { a }"])
        #expect(run.status == 1 && run.stderr.contains("larger than 16 MiB"), "\(run.stderr)")
    }
}

package import Foundation
import HTTPTypes
import MultiAuthCore
import MultiAuthCurl
import Testing

/// The AppSync peer's real-time side (scripts/peers/appsync_server.py): its per-tag paths and
/// hooks, and a bounded wait for what it reports.
package enum RealtimePeer {
    package struct TimedOut: Error, CustomStringConvertible {
        package let what: String
        package var description: String { "timed out waiting for \(what)" }

        package init(what: String) { self.what = what }
    }

    /// The peer's root (`http://127.0.0.1:P`).
    package static var root: String { String(Peers.appSync.dropLast("/graphql".count)) }

    /// A fresh tag: its API URL is `<root>/t/<tag>/graphql`, and its sockets are counted and dropped apart from other tests'.
    package static func tag() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }

    package static func apiURL(tag: String) -> String { "\(root)/t/\(tag)/graphql" }

    package static func eventsURL(tag: String? = nil) -> String { tag.map { "\(root)/t/\($0)/event" } ?? "\(root)/event" }

    /// A unique author, so subscriptions filter on this test's posts only.
    package static func author() -> String { "author-" + UUID().uuidString.prefix(12).lowercased() }

    package static func get(_ path: String) async throws -> [String: Any] {
        try await call(.get, path, body: [])
    }

    @discardableResult
    package static func post(_ path: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
        try await call(.post, path, body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    private static func call(_ method: HTTPRequest.Method, _ path: String, body: [UInt8]) async throws -> [String: Any] {
        let response = try await CurlHTTPClient().send(try HTTPRequest(method: method, wireURL: root + path), body: .bytes(body))
        return try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// Live subscriptions filtering on `author`.
    package static func subscribers(_ author: String) async throws -> Int { try await get("/_peer/subscribers?author=\(author)")["count"] as? Int ?? -1 }

    /// The tag's open sockets, connections seen and starts seen.
    package static func counts(_ tag: String) async throws -> (sockets: Int, connections: Int, starts: Int) {
        let object = try await get("/_peer/tag/\(tag)")
        return (object["sockets"] as? Int ?? -1, object["connections"] as? Int ?? -1, object["starts"] as? Int ?? -1)
    }

    /// Polls `condition` every 50 ms for up to `seconds` (long: under the whole suite, tests that
    /// block their thread can hold up this poll for many seconds).
    package static func wait(_ what: String, seconds: Double = 45, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        if try await condition() { return }  // a last look: the poll itself may have been held up
        throw TimedOut(what: what)
    }

    /// The first `count` elements of `stream`, or a timeout after `seconds`. The stream stays
    /// open for more (the consuming task ends without cancelling it).
    package static func first<T: Sendable>(_ count: Int, of stream: AsyncThrowingStream<T, any Error>, seconds: Double = 45) async throws -> [T] {
        try await withThrowingTaskGroup(of: [T]?.self) { group in
            group.addTask {
                var out: [T] = []
                for try await value in stream {
                    out.append(value)
                    if out.count == count { break }
                }
                return out
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let winner = try await group.next() ?? nil
            group.cancelAll()
            guard let winner else { throw TimedOut(what: "\(count) message(s)") }
            return winner
        }
    }
}

extension RealtimePeer {
    /// The first element of `stream`, calling `send(n)` (n = 0, 1, …) every `interval` until one
    /// arrives or `seconds` pass: AppSync does not replay events sent while a connection is being
    /// replaced, and on a loaded machine a replacement can come at any moment.
    package static func firstWhileSending<T: Sendable>(
        _ stream: AsyncThrowingStream<T, any Error>, every interval: Duration = .seconds(3), seconds: Double = 45,
        _ send: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                for try await value in stream { return value }
                return nil
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(seconds)
                var attempt = 0
                while ContinuousClock.now < deadline {
                    try await send(attempt)
                    attempt += 1
                    try await Task.sleep(for: interval)
                }
                return nil
            }
            let winner = try await group.next() ?? nil
            group.cancelAll()
            guard let winner else { throw TimedOut(what: "a message while sending") }
            return winner
        }
    }
}

/// A process left running while the test does something else (a subscriber), then collected.
package final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private var stdout = Data()
    private var stderr = Data()
    private let readers = DispatchGroup()

    package init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] { env[key] = nil }
        process.environment = env.merging(environment) { $1 }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOut) in [(out, true), (err, false)] {
            readers.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                if isOut { self.stdout = data } else { self.stderr = data }
                self.readers.leave()
            }
        }
    }

    /// Kills it as a crash or `kill -9` would: nothing runs after.
    package func kill() { _ = Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Waits up to `seconds` for the exit (then kills it) and returns what it printed.
    package func finish(within seconds: Double = 30) async throws -> CLI.Run {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill() }
        process.waitUntilExit()
        readers.wait()
        return CLI.Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

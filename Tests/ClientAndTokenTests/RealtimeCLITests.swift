import Foundation
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthCore
import Testing

/// `multiauth subscribe` and `multiauth events` as a user runs them, and gql's AppSync
/// real-time client (an implementation we did not write) against the same peer.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.appSyncAvailable, Peers.reason)) struct RealtimeCLITests {
    static let iamEnvironment = ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret]

    static func configFile(_ fixture: AppSyncFixture) throws -> String {
        let path = fixture.folder + "-awsconfiguration.json"
        try fixture.text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func subscriber(_ fixture: AppSyncFixture, config: String, mode: String, author: String, extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(
            Paths.multiauth,
            ["subscribe", "--config", config, "--cache-dir", fixture.folder, "--mode", mode, "--query", RealtimeSubscriptionTests.onCreate,
             "--variables", RealtimeSubscriptionTests.variables(author).description, "--count", "1", "--timeout", "30"] + extra,
            environment: iamEnvironment)
    }

    static func gql(mode: String, query: String, author: String) throws -> BackgroundProcess {
        try BackgroundProcess(
            URL(fileURLWithPath: Paths.python),
            Paths.pythonArguments + [
                Paths.repository.appendingPathComponent("scripts/oracles/gql_subscribe.py").path, "--url", Peers.appSync, "--mode", mode,
                "--key-id", Peers.keyId, "--secret", Peers.secret, "--api-key", Peers.apiKey, "--query", query,
                "--variables", #"{"author": "\#(author)"}"#, "--count", "1", "--timeout", "30",
            ])
    }

    static func json(_ line: String) throws -> JSONValue { try JSONValue.decode(line) }

    @Test func subscribePrintsEachMutationInIAMAndAPIKeyModesWithPerFieldNulls() async throws {
        let fixture = try AppSyncFixture()
        let config = try Self.configFile(fixture)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let author = RealtimePeer.author()
        let iam = try Self.subscriber(fixture, config: config, mode: "AWS_IAM", author: author)
        let key = try Self.subscriber(fixture, config: config, mode: "API_KEY", author: author, extra: ["-v"])
        try await RealtimePeer.wait("both CLI subscriptions") { try await RealtimePeer.subscribers(author) == 2 }
        let client = try RealtimeSubscriptionTests.factory(fixture).client(named: "Post_AWS_IAM")
        try await RealtimeSubscriptionTests.addPost(client, id: "cli-\(author)", author: author)
        let (iamRun, keyRun) = (try await iam.finish(), try await key.finish())
        #expect(iamRun.status == 0, "\(iamRun.stderr)")
        #expect(keyRun.status == 0, "\(keyRun.stderr)")
        let privateLine = try Self.json(iamRun.stdout)
        let publicLine = try Self.json(keyRun.stdout)
        guard case .object(let privateMembers) = privateLine, case .object(let publicMembers) = publicLine else {
            Issue.record("not JSON objects: \(iamRun.stdout) \(keyRun.stdout)")
            return
        }
        #expect(privateMembers["errors"] == nil)
        #expect("\(privateMembers["data"] ?? .null)".contains(#""url":"https://example.com/cli-\#(author)""#))
        #expect("\(publicMembers["data"] ?? .null)".contains(#""url":null"#))
        #expect("\(publicMembers["errors"] ?? .null)".contains("Not Authorized to access url on type Post"))
        #expect(iamRun.stdout.split(separator: "\n").count == 1)
        // -v shows the connection's stages, never the key.
        #expect(keyRun.stderr.contains("connection acknowledged"))
        #expect(!keyRun.stderr.contains(Peers.apiKey))
    }

    @Test func subscribeExitsWithAppSyncsMessageWhenTheConnectionIsRefused() async throws {
        let fixture = try AppSyncFixture()
        let config = try Self.configFile(fixture)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await Self.subscriber(fixture, config: config, mode: "API_KEY", author: RealtimePeer.author(), extra: ["--api-key", "wrong-key-123456", "-v"]).finish()
        #expect(run.status == 1)
        #expect(run.stderr.contains("refused the connection: UnauthorizedException: You are not authorized to make this call."), "\(run.stderr)")
        #expect(!run.stderr.contains("wrong-key-123456"))
        let notASubscription = try await CLI.run(
            ["subscribe", "--config", config, "--cache-dir", fixture.folder, "--mode", "API_KEY", "--query", "query { listPosts { id } }"])
        #expect(notASubscription.status == 2)
        #expect(notASubscription.stderr.contains("only takes subscription operations"))
    }

    @Test func gqlAndOurClientReceiveTheSameDataFromThePeerInIAMAndAPIKeyModes() async throws {
        let fixture = try AppSyncFixture()
        let config = try Self.configFile(fixture)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let author = RealtimePeer.author()
        let query = "subscription OnCreate($author: String) { onCreatePost(author: $author) { id author title } }"
        let iamQuery = "subscription OnCreate($author: String) { onCreatePost(author: $author) { id author title url ups } }"
        let theirs = [try Self.gql(mode: "iam", query: iamQuery, author: author), try Self.gql(mode: "api-key", query: query, author: author)]
        let ours = try ["AWS_IAM": iamQuery, "API_KEY": query].sorted { $0.key > $1.key }.map { mode, text in
            try BackgroundProcess(
                Paths.multiauth,
                ["subscribe", "--config", config, "--cache-dir", fixture.folder, "--mode", mode, "--query", text,
                 "--variables", RealtimeSubscriptionTests.variables(author).description, "--count", "1", "--timeout", "30"],
                environment: Self.iamEnvironment)
        }
        // Python and gql start slowly on a loaded machine.
        try await RealtimePeer.wait("four subscriptions", seconds: 45) { try await RealtimePeer.subscribers(author) == 4 }
        let client = try RealtimeSubscriptionTests.factory(fixture).client(named: "Post_AWS_IAM")
        try await RealtimeSubscriptionTests.addPost(client, id: "gql-\(author)", author: author)
        var gqlRuns: [CLI.Run] = []
        for process in theirs { gqlRuns.append(try await process.finish()) }
        var ourRuns: [CLI.Run] = []
        for process in ours { ourRuns.append(try await process.finish()) }
        for (gqlRun, ourRun) in zip(gqlRuns, ourRuns) {
            #expect(gqlRun.status == 0, "\(gqlRun.stdout)")
            #expect(ourRun.status == 0, "\(ourRun.stderr)")
            #expect(try Self.json(gqlRun.stdout) == Self.json(ourRun.stdout))
        }
        #expect(gqlRuns.first?.stdout.contains("https://example.com/gql-\(author)") == true)
    }

    @Test func eventsArePublishedAndReceivedInIAMAndAPIKeyModes() async throws {
        let namespace = "/ns" + UUID().uuidString.prefix(6).lowercased()
        let tag = RealtimePeer.tag()
        let endpoint = RealtimePeer.eventsURL(tag: tag)
        let wildcard = try BackgroundProcess(
            Paths.multiauth,
            ["events", "subscribe", "--endpoint", endpoint, "--auth", "iam", "--channel", namespace + "/*", "--count", "2", "--timeout", "30"],
            environment: Self.iamEnvironment)
        let exact = try BackgroundProcess(
            Paths.multiauth,
            ["events", "subscribe", "--endpoint", endpoint, "--auth", "api-key", "--api-key", Peers.apiKey, "--channel", namespace + "/b",
             "--count", "1", "--timeout", "30"])
        try await RealtimePeer.wait("the two event subscriptions") { try await RealtimePeer.counts(tag).starts == 2 }
        let first = try await CLI.run(
            ["events", "publish", "--endpoint", endpoint, "--auth", "iam", "--channel", namespace + "/a", #"{"n":1}"#], environment: Self.iamEnvironment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains(#""failed":[]"#))
        let second = try await CLI.run(
            ["events", "publish", "--endpoint", endpoint, "--auth", "api-key", "--api-key", Peers.apiKey, "--channel", namespace + "/b", #""two""#])
        #expect(second.status == 0, "\(second.stderr)")
        let wildcardRun = try await wildcard.finish()
        let exactRun = try await exact.finish()
        #expect(wildcardRun.status == 0, "\(wildcardRun.stderr)")
        #expect(wildcardRun.stdout == "{\"n\":1}\n\"two\"\n")
        #expect(exactRun.stdout == "\"two\"\n")
    }

    @Test func eventsRefuseBadChannelsAndWrongKeysClearly() async throws {
        let endpoint = RealtimePeer.eventsURL()
        let wildcardPublish = try await CLI.run(["events", "publish", "--endpoint", endpoint, "--auth", "api-key", "--api-key", Peers.apiKey, "--channel", "/ns/*", "1"])
        #expect(wildcardPublish.status == 2)
        #expect(wildcardPublish.stderr.contains("publish cannot use the wildcard"))
        let sixEvents = try await CLI.run(
            ["events", "publish", "--endpoint", endpoint, "--auth", "api-key", "--api-key", Peers.apiKey, "--channel", "/ns/a", "1", "2", "3", "4", "5", "6"])
        #expect(sixEvents.status == 2)
        let wrongKey = try await CLI.run(["events", "publish", "--endpoint", endpoint, "--auth", "api-key", "--api-key", "wrong-events-key", "--channel", "/ns/a", "1"])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("HTTP 401"))
        #expect(!wrongKey.stderr.contains("wrong-events-key"))
        let refused = try await CLI.run(
            ["events", "subscribe", "--endpoint", endpoint, "--auth", "api-key", "--api-key", "wrong-events-key", "--channel", "/ns/a", "--timeout", "20"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("UnauthorizedException"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-events-key"))
    }
}

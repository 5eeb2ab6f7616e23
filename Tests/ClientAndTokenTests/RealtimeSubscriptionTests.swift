import Foundation
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthAppSyncEvents
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthRealtime
import MultiAuthSigV4
import MultiAuthWebSocket
import Testing

/// AppSync GraphQL subscriptions through the library, against the peer's real-time protocol
/// (its IAM handshakes and starts checked with botocore).
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.appSyncAvailable, Peers.reason)) struct RealtimeSubscriptionTests {
    static let onCreate = "subscription OnCreate($author: String) { onCreatePost(author: $author) { id author title url ups } }"
    static let addPost = """
        mutation AddPost($id: ID!, $author: String!, $title: String, $url: String, $ups: Int) {
          addPost(id: $id, author: $author, title: $title, url: $url, ups: $ups) { id }
        }
        """

    static func factory(_ fixture: AppSyncFixture, apiKey: String? = nil) -> ClientFactory {
        ClientFactory(
            configuration: fixture.configuration, cacheDirectory: fixture.folder,
            http: CurlHTTPClient(), credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret)),
            apiKey: apiKey, webSocket: NIOWebSocketConnector())
    }

    static func addPost(_ client: AppSyncClient, id: String, author: String) async throws {
        let outcome = try await client.mutate(
            addPost, variables: .object(["id": .string(id), "author": .string(author), "title": .string("hello"), "url": .string("https://example.com/\(id)"), "ups": .number(7)]),
            queueWhenOffline: false)
        guard case .completed(let result) = outcome, result.errors.isEmpty else { throw RealtimePeer.TimedOut(what: "the mutation (\(outcome))") }
    }

    static func variables(_ author: String) -> JSONValue { .object(["author": .string(author)]) }

    @Test func iamAndAPIKeySubscribersReceiveTheMutationWithPerFieldNulls() async throws {
        let fixture = try AppSyncFixture()
        let factory = Self.factory(fixture)
        let iam = try factory.client(named: "Post_AWS_IAM")
        let key = try factory.client(named: "Default")
        let author = RealtimePeer.author()
        let privateStream = try await iam.subscribe(Self.onCreate, variables: Self.variables(author))
        let publicStream = try await key.subscribe(Self.onCreate, variables: Self.variables(author))
        try await RealtimePeer.wait("both subscriptions") { try await RealtimePeer.subscribers(author) == 2 }
        #expect(try await iam.storedSubscriptions().map(\.document) == [Self.onCreate])
        try await Self.addPost(iam, id: "rt-\(author)", author: author)

        let seenPrivately = try #require(try await RealtimePeer.first(1, of: privateStream).first)
        #expect(seenPrivately.value(at: ["onCreatePost", "url"]) == .string("https://example.com/rt-\(author)"))
        #expect(seenPrivately.value(at: ["onCreatePost", "ups"]) == .number(7))
        #expect(seenPrivately.errors.isEmpty)
        let seenPublicly = try #require(try await RealtimePeer.first(1, of: publicStream).first)
        #expect(seenPublicly.value(at: ["onCreatePost", "title"]) == .string("hello"))
        #expect(seenPublicly.value(at: ["onCreatePost", "url"]) == .null)
        #expect(seenPublicly.value(at: ["onCreatePost", "ups"]) == .null)
        #expect(Set(seenPublicly.errors.map(\.message)) == ["Not Authorized to access url on type Post", "Not Authorized to access ups on type Post"])
        #expect(seenPublicly.errors.allSatisfy { $0.errorType == "Unauthorized" })
    }

    @Test func subscriptionsShareOneSocketWhichClosesAfterTheLastAndTheirRowsGo() async throws {
        let tag = RealtimePeer.tag()
        let fixture = try AppSyncFixture(apiURL: RealtimePeer.apiURL(tag: tag))
        let client = try Self.factory(fixture).client(named: "Post_AWS_IAM")
        let (first, second) = (RealtimePeer.author(), RealtimePeer.author())
        let one = try await client.subscribe(Self.onCreate, variables: Self.variables(first))
        let two = try await client.subscribe(Self.onCreate, variables: Self.variables(second))
        try await RealtimePeer.wait("two starts") { try await RealtimePeer.counts(tag).starts == 2 }
        #expect(try await RealtimePeer.counts(tag).connections == 1)
        #expect(try await client.storedSubscriptions().count == 2)
        try await Self.addPost(client, id: "a-\(first)", author: first)
        try await Self.addPost(client, id: "b-\(second)", author: second)
        #expect(try await RealtimePeer.first(1, of: one).first?.value(at: ["onCreatePost", "author"]) == .string(first))
        #expect(try await RealtimePeer.first(1, of: two).first?.value(at: ["onCreatePost", "author"]) == .string(second))
        // Ending both consumers sends stop for each, then the socket closes.
        await withThrowingTaskGroup(of: Void.self) { group in
            for stream in [one, two] { group.addTask { for try await _ in stream {} } }
            group.cancelAll()
        }
        try await RealtimePeer.wait("the stops") {
            let left = try await RealtimePeer.subscribers(first) + RealtimePeer.subscribers(second)
            return left == 0
        }
        try await RealtimePeer.wait("the socket to close") { try await RealtimePeer.counts(tag).sockets == 0 }
        try await RealtimePeer.wait("the metadata rows to go") { try await client.storedSubscriptions().isEmpty }
    }

    @Test func aDroppedSocketIsReplacedAndTheSubscriptionStartedAgain() async throws {
        let tag = RealtimePeer.tag()
        let fixture = try AppSyncFixture(apiURL: RealtimePeer.apiURL(tag: tag))
        let client = try Self.factory(fixture).client(named: "Post_AWS_IAM")
        let author = RealtimePeer.author()
        let stream = try await client.subscribe(Self.onCreate, variables: Self.variables(author))
        try await RealtimePeer.wait("the start") { try await RealtimePeer.counts(tag).starts == 1 }
        try await RealtimePeer.post("/_peer/drop/\(tag)")
        try await RealtimePeer.wait("a new connection and start", seconds: 30) {
            let counts = try await RealtimePeer.counts(tag)
            return counts.connections == 2 && counts.starts == 2
        }
        try await Self.addPost(client, id: "drop-\(author)", author: author)
        #expect(try await RealtimePeer.first(1, of: stream).first?.value(at: ["onCreatePost", "id"]) == .string("drop-\(author)"))
    }

    @Test func aSilentConnectionIsDeclaredDeadAfterTheAcknowledgedTimeout() async throws {
        let tag = RealtimePeer.tag()
        try await RealtimePeer.post("/_peer/tag/\(tag)", ["timeoutMs": 800, "kaMs": 150])
        let fixture = try AppSyncFixture(apiURL: RealtimePeer.apiURL(tag: tag))
        let client = try Self.factory(fixture).client(named: "Post_AWS_IAM")
        let author = RealtimePeer.author()
        let stream = try await client.subscribe(Self.onCreate, variables: Self.variables(author))
        try await RealtimePeer.wait("the start") { try await RealtimePeer.counts(tag).starts == 1 }
        try await RealtimePeer.post("/_peer/silence/\(tag)", ["silent": true])
        // The socket stays open on the peer's side: only the client's keep-alive watch can end it.
        try await RealtimePeer.wait("a replacement connection", seconds: 30) { try await RealtimePeer.counts(tag).connections >= 2 }
        // From here on, connections get a long timeout: on a loaded machine an 800 ms watch can
        // lapse again while the mutation is in flight, and AppSync does not replay missed events.
        try await RealtimePeer.post("/_peer/tag/\(tag)", ["timeoutMs": 300_000, "kaMs": 5000])
        try await RealtimePeer.post("/_peer/silence/\(tag)", ["silent": false])
        var settled = try await RealtimePeer.counts(tag)
        try await RealtimePeer.wait("the connections to settle", seconds: 30) {
            try await Task.sleep(for: .milliseconds(1200))
            let now = try await RealtimePeer.counts(tag)
            defer { settled = now }
            return now.connections == settled.connections && now.sockets == 1 && now.starts == now.connections
        }
        try await RealtimePeer.wait("the subscription") { try await RealtimePeer.subscribers(author) == 1 }
        let received = try await RealtimePeer.firstWhileSending(stream) { attempt in
            try await Self.addPost(client, id: "silent-\(attempt)-\(author)", author: author)
        }
        guard case .string(let id) = received.value(at: ["onCreatePost", "id"]) else {
            Issue.record("no id in \(received)")
            return
        }
        #expect(id.hasPrefix("silent-") && id.hasSuffix(author))
    }

    @Test func aRefusedConnectionEndsTheSubscriptionWithAppSyncsErrorAndIsNotRetried() async throws {
        let tag = RealtimePeer.tag()
        let fixture = try AppSyncFixture(apiURL: RealtimePeer.apiURL(tag: tag))
        let client = try Self.factory(fixture, apiKey: "not-the-key-0000").client(named: "Default")
        let stream = try await client.subscribe(Self.onCreate, variables: Self.variables(RealtimePeer.author()))
        await #expect {
            _ = try await RealtimePeer.first(1, of: stream)
        } throws: { error in
            guard case .realtime(_, let realtime)? = (error as? AppSyncClientError)?.kind,
                case .connectionRefused(_, let errors) = realtime.kind
            else { return false }
            return errors.first?.errorType == "UnauthorizedException" && !"\(error)".contains("not-the-key-0000")
        }
        #expect(try await RealtimePeer.counts(tag).connections == 1)
    }

    @Test func onlySubscriptionsGoToTheRealtimeEndpointAndOnlyWithASocket() async throws {
        let fixture = try AppSyncFixture()
        let client = try Self.factory(fixture).client(named: "Default")
        await #expect(throws: AppSyncClientError.self) { _ = try await client.subscribe("query { listPosts { id } }") }
        await #expect(throws: AppSyncClientError.self) { _ = try await client.subscribe("{ listPosts { id } }") }
        await #expect(throws: AppSyncClientError.self) { _ = try await client.subscribe(Self.onCreate, variables: .array([])) }
        let withoutSocket = try fixture.factory().client(named: "Post_AWS_IAM")
        await #expect {
            _ = try await withoutSocket.subscribe(Self.onCreate)
        } throws: { error in
            guard case .noWebSocket? = (error as? AppSyncClientError)?.kind else { return false }
            return true
        }
    }

    @Test func aSubscriptionLeftByAKilledProcessIsStoredResumedAndCleared() async throws {
        let fixture = try AppSyncFixture()
        let author = RealtimePeer.author()
        let config = fixture.folder + "-awsconfiguration.json"
        try fixture.text.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let subscriber = try BackgroundProcess(
            Paths.multiauth,
            ["subscribe", "--config", config, "--cache-dir", fixture.folder, "--client", "Post_AWS_IAM", "--query", Self.onCreate,
             "--variables", Self.variables(author).description],
            environment: ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret])
        try await RealtimePeer.wait("the CLI's subscription") { try await RealtimePeer.subscribers(author) == 1 }
        subscriber.kill()
        _ = try await subscriber.finish(within: 5)

        let restarted = try Self.factory(fixture).client(named: "Post_AWS_IAM")
        let stored = try await restarted.storedSubscriptions()
        #expect(stored.count == 1)
        let left = try #require(stored.first)
        #expect(left.document == Self.onCreate)
        #expect(left.variables == Self.variables(author).description)
        let resumed = try await restarted.resume(left)
        try await RealtimePeer.wait("the resumed subscription") { try await RealtimePeer.subscribers(author) == 1 }
        try await Self.addPost(restarted, id: "resume-\(author)", author: author)
        #expect(try await RealtimePeer.first(1, of: resumed).first?.value(at: ["onCreatePost", "id"]) == .string("resume-\(author)"))
        #expect(await restarted.clearCaches(.subscriptions).isEmpty)
        #expect(try await restarted.storedSubscriptions().isEmpty)
    }
}

/// The NIO connector on its own: failures are typed, bounded, and never quote the URL's query.
@Suite(.timeLimit(.minutes(5))) struct WebSocketConnectorTests {
    @Test func aRefusedConnectionFailsAtOnceWithoutQuotingTheAuthorizationQuery() async throws {
        let url = "ws://127.0.0.1:1/graphql/realtime?header=c2VjcmV0LWtleQ==&payload=e30="
        await #expect {
            _ = try await NIOWebSocketConnector(connectTimeout: .seconds(5)).connect(to: url, subprotocols: ["graphql-ws"], logger: .disabled)
        } throws: { error in
            guard case .connectFailed(let endpoint, _)? = (error as? RealtimeError)?.kind else { return false }
            return endpoint == "ws://127.0.0.1:1/graphql/realtime" && !"\(error)".contains("c2VjcmV0")
        }
    }

    @Test(.enabled(if: Peers.appSyncAvailable, Peers.reason)) func aServerThatRefusesTheUpgradeFailsClearly() async throws {
        // The peer answers 400 without the subprotocol it requires.
        await #expect {
            _ = try await NIOWebSocketConnector().connect(to: RealtimePeer.root.replacingOccurrences(of: "http://", with: "ws://") + "/graphql/realtime", subprotocols: [], logger: .disabled)
        } throws: { error in
            guard case .connectFailed? = (error as? RealtimeError)?.kind else { return false }
            return true
        }
    }
}

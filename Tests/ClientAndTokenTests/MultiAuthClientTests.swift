import Foundation
import GRDB
import HTTPTypes
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthAuthorization
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import MultiAuthTokens
import Testing

/// A throwaway cache folder and an awsconfiguration.json for the AppSync peer.
final class AppSyncFixture: Sendable {
    let folder: String
    let configuration: AWSConfiguration
    /// The configuration's JSON text.
    let text: String

    /// `apiKey` defaults to the API peer's; a test that never calls the API passes its own,
    /// so it runs without the peers.
    init(apiURL: String = Peers.appSync, apiKey: String = Peers.apiKey, prefixSuffix: String = UUID().uuidString.replacingOccurrences(of: "-", with: "")) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-appsync-\(UUID().uuidString)").path
        let text = """
            {"AppSync": {
              "Default": {"ApiUrl": "\(apiURL)", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "\(apiKey)",
                          "ClientDatabasePrefix": "Post_API_KEY_\(prefixSuffix)"},
              "Post_AWS_IAM": {"ApiUrl": "\(apiURL)", "Region": "us-east-1", "AuthMode": "AWS_IAM", "ClientDatabasePrefix": "Post_AWS_IAM_\(prefixSuffix)"},
              "Post_USER_POOLS": {"ApiUrl": "\(apiURL)", "Region": "us-east-1", "AuthMode": "AMAZON_COGNITO_USER_POOLS", "ClientDatabasePrefix": "Post_UP_\(prefixSuffix)"},
              "Post_OIDC": {"ApiUrl": "\(apiURL)", "Region": "us-east-1", "AuthMode": "OPENID_CONNECT", "ClientDatabasePrefix": "Post_OIDC_\(prefixSuffix)"}
            }}
            """
        self.text = text
        configuration = try AWSConfiguration.parse(Array(text.utf8), file: "awsconfiguration.json").validated()
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func factory(tokens: [AuthMode: any TokenProvider] = [:], http: any HTTPSender = CurlHTTPClient()) -> ClientFactory {
        ClientFactory(
            configuration: configuration, cacheDirectory: folder, http: http,
            credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret)),
            tokenProviders: tokens)
    }
}

/// The seed scenario and the client factory's guarantees, against the AppSync-like peer.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.appSyncAvailable && Peers.oidcAvailable, Peers.reason)) struct MultiAuthClientTests {
    static let getPost = "query GetPost($id: ID!) { getPost(id: $id) { id author title content url ups downs version } }"
    static let addPost = """
        mutation AddPost($id: ID!, $author: String!, $title: String, $url: String, $ups: Int, $downs: Int) {
          addPost(id: $id, author: $author, title: $title, url: $url, ups: $ups, downs: $downs) { id version }
        }
        """

    @Test func theSeedScenario() async throws {
        let fixture = try AppSyncFixture()
        let setup = try #require(Peers.setup)
        let oidc = try await OpenIDConnectClient.discover(
            OIDCConfiguration(issuer: Peers.oidcIssuer, clientId: Peers.oidcConfidentialClient, clientSecret: Peers.oidcClientSecret),
            http: CurlHTTPClient()
        ).clientCredentials()
        let factory = fixture.factory(tokens: [
            .amazonCognitoUserPools: StaticTokenProvider(AuthTokens(idToken: setup.idToken, accessToken: setup.idToken, refreshToken: nil, expiresAt: Int64.max / 2)),
            .openIDConnect: StaticTokenProvider(AuthTokens(idToken: oidc.accessToken, accessToken: oidc.accessToken, refreshToken: nil, expiresAt: Int64.max / 2)),
        ])
        let mapping = ["public": "Default", "private": "Post_AWS_IAM"]
        let privateClient = try factory.client("private", in: mapping)
        let publicClient = try factory.client("public", in: mapping)
        let id = "post-\(UUID().uuidString)"
        let variables: JSONValue = .object(["id": .string(id), "author": .string("alice"), "title": .string("Multi-auth"),
                                            "url": .string("https://example.com/secret-\(id)"), "ups": .number(7), "downs": .number(2)])
        guard case .completed(let added) = try await privateClient.mutate(Self.addPost, variables: variables) else {
            Issue.record("the mutation was queued")
            return
        }
        #expect(added.errors.isEmpty)
        let query: JSONValue = .object(["id": .string(id)])

        let full = try await privateClient.query(Self.getPost, variables: query)
        #expect(full.result.errors.isEmpty)
        #expect(full.result.value(at: ["getPost", "url"]) == .string("https://example.com/secret-\(id)"))
        #expect(full.result.value(at: ["getPost", "ups"]) == .number(7))

        let partial = try await publicClient.query(Self.getPost, variables: query)
        #expect(partial.result.value(at: ["getPost", "author"]) == .string("alice"))
        for field in ["url", "ups", "downs"] {
            #expect(partial.result.value(at: ["getPost", field]) == .null)
            #expect(partial.result.errors.contains {
                $0.message == "Not Authorized to access \(field) on type Post" && $0.errorType == "Unauthorized"
                    && $0.path == [.string("getPost"), .string(field)] && !($0.locations ?? []).isEmpty
            })
        }
        #expect(partial.result.errors.count == 3)

        // The two clients' query caches are different files with different contents.
        let privateFile = privateClient.databases.queriesPath
        let publicFile = publicClient.databases.queriesPath
        #expect(privateFile != publicFile)
        let privateBytes = try Data(contentsOf: URL(fileURLWithPath: privateFile))
        let publicBytes = try Data(contentsOf: URL(fileURLWithPath: publicFile))
        let secretURL = Data("secret-\(id)".utf8)
        #expect(privateBytes.range(of: secretURL) != nil)
        #expect(publicBytes.range(of: secretURL) == nil)
        // And each client serves its own answer from its own cache.
        #expect(try await publicClient.query(Self.getPost, variables: query, cachePolicy: .returnCacheDataDontFetch).result.errors.count == 3)
        #expect(try await privateClient.query(Self.getPost, variables: query, cachePolicy: .returnCacheDataDontFetch).result.errors.isEmpty)

        // The same API through user-pool and OIDC clients of the same configuration.
        for name in ["Post_USER_POOLS", "Post_OIDC"] {
            let client = try factory.client(named: name)
            let response = try await client.query(Self.getPost, variables: query)
            #expect(response.result.value(at: ["getPost", "author"]) == .string("alice"), "\(name)")
            #expect(response.result.errors.count == 3, "\(name)")
        }
    }

    @Test func cachePolicies() async throws {
        let fixture = try AppSyncFixture()
        let client = try fixture.factory().client(named: "Default")
        let query: JSONValue = .object(["id": .string("nothing-\(UUID().uuidString)")])
        await #expect(throws: AppSyncClientError.self) { try await client.query(Self.getPost, variables: query, cachePolicy: .returnCacheDataDontFetch) }
        #expect(try await client.query(Self.getPost, variables: query).source == .server)
        #expect(try await client.query(Self.getPost, variables: query).source == .cache)
        // Variables in another key order are the same cache entry.
        #expect(try await client.query(Self.getPost, variables: .object(["id": query.objectValue["id"] ?? .null])).source == .cache)
        #expect(try await client.query(Self.getPost, variables: query, cachePolicy: .fetchIgnoringCacheData).source == .server)
        let both = try await client.query(Self.getPost, variables: query, cachePolicy: .returnCacheDataAndFetch)
        #expect(both.source == .cache && both.refreshed != nil)
        #expect(await client.clearCaches(.queries).isEmpty)
        await #expect(throws: AppSyncClientError.self) { try await client.query(Self.getPost, variables: query, cachePolicy: .returnCacheDataDontFetch) }
    }

    @Test func offlineMutationsWaitAndReplayInOrder() async throws {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let id = "offline-\(suffix)"
        let offline = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", prefixSuffix: suffix)
        do {
            let client = try offline.factory().client(named: "Post_AWS_IAM")
            for title in ["first", "second", "third"] {
                let outcome = try await client.mutate(Self.addPost, variables: .object(["id": .string(id), "author": .string("bob"), "title": .string(title)]))
                guard case .queued = outcome else { Issue.record("not queued"); return }
            }
            await #expect(throws: AppSyncClientError.self) {
                try await client.mutate(Self.addPost, variables: .object(["id": .string(id), "author": .string("x")]), queueWhenOffline: false)
            }
            #expect(try await client.pendingMutationCount() == 3)
        }
        // Same database files (same prefix and folder), now with the server reachable.
        let online = try AppSyncFixture(apiURL: Peers.appSync, prefixSuffix: suffix)
        let replayer = ClientFactory(
            configuration: online.configuration, cacheDirectory: offline.folder,
            http: CurlHTTPClient(), credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret)))
        let client = try replayer.client(named: "Post_AWS_IAM")
        #expect(try await client.replayOfflineMutations() == 3)
        #expect(try await client.pendingMutationCount() == 0)
        let post = try await client.query(Self.getPost, variables: .object(["id": .string(id)]), cachePolicy: .fetchIgnoringCacheData)
        #expect(post.result.value(at: ["getPost", "title"]) == .string("third"))
        #expect(post.result.value(at: ["getPost", "version"]) == .number(3))
    }

    /// A new mutation used to be sent while older queued ones stayed queued forever (issue 19,
    /// finding 9): now the queue goes first, in order.
    @Test func aNewMutationIsSentOnlyAfterTheQueuedOnes() async throws {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let id = "order-\(suffix)"
        let offline = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", prefixSuffix: suffix)
        let queued = try await offline.factory().client(named: "Post_AWS_IAM")
            .mutate(Self.addPost, variables: .object(["id": .string(id), "author": .string("bob"), "title": .string("first")]))
        guard case .queued = queued else { Issue.record("not queued"); return }
        let online = try AppSyncFixture(apiURL: Peers.appSync, prefixSuffix: suffix)
        let client = try ClientFactory(
            configuration: online.configuration, cacheDirectory: offline.folder,
            http: CurlHTTPClient(), credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret))
        ).client(named: "Post_AWS_IAM")
        let outcome = try await client.mutate(Self.addPost, variables: .object(["id": .string(id), "author": .string("bob"), "title": .string("second")]))
        guard case .completed(let result) = outcome else { Issue.record("not sent: \(outcome)"); return }
        // The server numbers versions in arrival order: the queued one was 1, the new one 2.
        #expect(result.value(at: ["addPost", "version"]) == .number(2))
        #expect(try await client.pendingMutationCount() == 0)
        let post = try await client.query(Self.getPost, variables: .object(["id": .string(id)]), cachePolicy: .fetchIgnoringCacheData)
        #expect(post.result.value(at: ["getPost", "title"]) == .string("second"))
    }

    @Test func aQueuedMutationWhoseVariablesNoLongerDecodeStaysQueued() async throws {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let offline = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", prefixSuffix: suffix)
        let client = try offline.factory().client(named: "Post_AWS_IAM")
        let outcome = try await client.mutate(Self.addPost, variables: .object(["id": .string("v-\(suffix)"), "author": .string("bob")]))
        guard case .queued = outcome else { Issue.record("not queued"); return }
        // Damage the stored row behind the client's back, as a bad disk or an old version might.
        let database = try DatabaseQueue(path: client.databases.offlineMutationsPath)
        try await database.write { try $0.execute(sql: "UPDATE mutations SET variables = '{\"id\": '") }
        await #expect {
            try await client.replayOfflineMutations()
        } throws: { error in
            guard case .undecodableQueuedVariables(let entry, _)? = (error as? AppSyncClientError)?.kind else { return false }
            return entry == "Post_AWS_IAM"
        }
        #expect(try await client.pendingMutationCount() == 1)
    }

    @Test func badCachesAndServersGetTypedErrors() async throws {
        let fixture = try AppSyncFixture()
        let factory = fixture.factory()
        // Two live clients may not share database files for another mode.
        let entry = try fixture.configuration.entry(named: "Default")
        let sharing = ClientFactory(
            configuration: fixture.configuration, cacheDirectory: fixture.folder, useClientDatabasePrefix: false,
            http: CurlHTTPClient(), credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: Peers.keyId, secretAccessKey: Peers.secret)))
        let first = try sharing.client(named: "Default")
        #expect(first.databases.queriesPath.hasSuffix("/queries.db"))
        #expect(throws: ClientFactoryError.self) { try sharing.client(named: "Post_AWS_IAM") }
        _ = try sharing.client(named: "Default")  // the same URL and mode may share

        // A damaged database is moved aside, never deleted.
        let path = factory.databasePaths(for: entry)[0]
        try FileManager.default.createDirectory(atPath: fixture.folder, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try factory.client(named: "Default")
            Issue.record("a damaged database opened")
        } catch {
            guard case .cache(let cache) = error.kind, case .corruptDatabase(let name, let file, let movedTo) = cache.kind else { Issue.record("got \(error)"); return }
            #expect(name == "Default" && file == path)
            #expect(FileManager.default.fileExists(atPath: movedTo))
            #expect(!FileManager.default.fileExists(atPath: path))
        }

        // An unwritable cache folder.
        let readOnly = fixture.folder + "/read-only"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o500])
        if getuid() != 0 {
            let blocked = ClientFactory(configuration: fixture.configuration, cacheDirectory: readOnly, http: CurlHTTPClient())
            #expect(throws: ClientFactoryError.self) { try blocked.client(named: "Default") }
        }
        let file = fixture.folder + "/a-file"
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(throws: ClientFactoryError.self) { try ClientFactory(configuration: fixture.configuration, cacheDirectory: file + "/sub", http: CurlHTTPClient()).client(named: "Default") }

        // A server that answers HTML.
        let html = try AppSyncFixture(apiURL: Peers.appSync.replacingOccurrences(of: "/graphql", with: "/html/graphql"))
        let client = try html.factory().client(named: "Default")
        await #expect {
            try await client.query(Self.getPost, variables: .object(["id": .string("x")]))
        } throws: { error in
            guard case .notJSON(let entry, _, let status, let type)? = (error as? AppSyncClientError)?.kind else { return false }
            return entry == "Default" && status == 502 && type == "text/html"
        }
        // A mode without its provider.
        #expect(throws: ClientFactoryError.self) { try factory.client(named: "Post_OIDC") }
    }

    @Test func theIAMRealtimeHandshakeIsAValidSignatureOfConnect() async throws {
        // Point the entry at the verifying API server so the handshake headers can be replayed
        // against it: POST <api>/connect with body {} must verify with botocore.
        let fixture = try AppSyncFixture(apiURL: Peers.api + "/iam/graphql")
        let factory = fixture.factory()
        let client = try factory.client(named: "Post_AWS_IAM")
        let header = try await RealtimeHandshake.authorization(for: client)
        #expect(Set(header.keys) == ["Authorization", "accept", "content-encoding", "content-type", "host", "x-amz-date"])
        let headers = try HTTPFields(checking: header.filter { $0.key != "host" }.map { ($0.key, $0.value) })
        let response = try await CurlHTTPClient().send(
            try HTTPRequest(method: .post, wireURL: Peers.api + "/iam/graphql/connect", headerFields: headers), body: .bytes(Array("{}".utf8)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let apiKey = try await RealtimeHandshake.authorization(for: factory.client(named: "Default"))
        #expect(Set(apiKey.keys) == ["host", "x-amz-date", "x-api-key"])
        let url = try await RealtimeHandshake.connectionURL(for: client)
        #expect(url.hasPrefix("ws://127.0.0.1:") && url.contains("/iam/graphql/realtime?header=") && url.hasSuffix("&payload=e30="))
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue] { if case .object(let members) = self { members } else { [:] } }
}

import Foundation
import HTTPTypes
import MultiAuthAppSync
import MultiAuthClientConfiguration
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import MultiAuthTesting
import MultiAuthTokens
import Testing

/// The client factory with no server: one AppSync client per auth mode from an
/// `awsconfiguration.json`, each authorizing as AppSync expects its mode (`x-api-key`, a
/// SigV4 signature for service `appsync`, the raw token in `Authorization`) and each with its
/// own `ClientDatabasePrefix` databases, as the AppSync SDK names them.
struct ClientFactoryTests {
    static let configuration = """
        {"AppSync": {
          "Default": {"ApiUrl": "https://api.example.com/graphql", "Region": "eu-west-1", "AuthMode": "API_KEY",
                      "ApiKey": "da2-unit-test-key", "ClientDatabasePrefix": "Post_API_KEY"},
          "Post_AWS_IAM": {"ApiUrl": "https://api.example.com/graphql", "Region": "eu-west-1", "AuthMode": "AWS_IAM",
                           "ClientDatabasePrefix": "Post_AWS_IAM"},
          "Post_USER_POOLS": {"ApiUrl": "https://api.example.com/graphql", "Region": "eu-west-1",
                              "AuthMode": "AMAZON_COGNITO_USER_POOLS", "ClientDatabasePrefix": "Post_USER_POOLS"}
        }}
        """

    final class Folder: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-factory-\(UUID().uuidString)").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func factory(_ sender: ScriptedSender, folder: Folder) throws -> ClientFactory {
        let configuration = try AWSConfiguration.parse(Array(Self.configuration.utf8), file: "awsconfiguration.json").validated()
        let tokens = StaticTokenProvider(AuthTokens(idToken: "id.token.value", accessToken: "access.token.value", refreshToken: nil, expiresAt: 4_102_444_800))
        return ClientFactory(
            configuration: configuration, cacheDirectory: folder.path, http: sender,
            credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDFACTORY", secretAccessKey: "factory-secret")),
            tokenProviders: [.amazonCognitoUserPools: tokens])
    }

    static let answer = ScriptedSender.Step.answer(200, #"{"data":{"listPosts":[]}}"#, headers: [("Content-Type", "application/json")])

    @Test func eachModeAuthorizesAsAppSyncExpects() async throws {
        let folder = Folder()
        let sender = ScriptedSender([Self.answer])
        let factory = try Self.factory(sender, folder: folder)
        for name in ["Default", "Post_AWS_IAM", "Post_USER_POOLS"] {
            let response = try await factory.client(named: name).query("query { listPosts { id } }", cachePolicy: .fetchIgnoringCacheData)
            #expect(response.source == .server)
        }
        let sent = sender.sent.map(\.request.headerFields)
        try #require(sent.count == 3)
        #expect(sent[0][HTTPField.Name("x-api-key")!] == "da2-unit-test-key" && sent[0][.authorization] == nil)
        #expect(sent[1][.authorization]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDFACTORY/") == true)
        #expect(sent[1][.authorization]?.contains("/eu-west-1/appsync/aws4_request, SignedHeaders=") == true)
        #expect(sent[2][.authorization] == "id.token.value", "AppSync takes the raw ID token, no Bearer")
    }

    @Test func eachClientHasItsOwnPrefixedDatabases() throws {
        let folder = Folder()
        let factory = try Self.factory(ScriptedSender([Self.answer]), folder: folder)
        for name in ["Default", "Post_AWS_IAM", "Post_USER_POOLS"] { _ = try factory.client(named: name) }
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".db") })
        for prefix in ["Post_API_KEY", "Post_AWS_IAM", "Post_USER_POOLS"] {
            for database in ["queries.db", "offlineMutations.db", "subscriptionMetadataCache.db"] {
                #expect(files.contains("\(prefix)_\(database)"), "\(prefix)_\(database) in \(files.sorted())")
            }
        }
    }

    @Test func aModeWithoutItsProviderIsAClearError() throws {
        let configuration = try AWSConfiguration.parse(Array(Self.configuration.utf8), file: "awsconfiguration.json").validated()
        let folder = Folder()
        let factory = ClientFactory(configuration: configuration, cacheDirectory: folder.path, http: ScriptedSender([Self.answer]))
        #expect(throws: ClientFactoryError.self) { try factory.client(named: "Post_USER_POOLS") }
        #expect(throws: ClientFactoryError.self) { try factory.client(named: "NoSuchEntry") }
    }
}

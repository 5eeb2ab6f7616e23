import Foundation
import IntegrationSupport
import MultiAuthAppSync
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import Testing

/// The AppSync cache is checked like the store (issue 19, finding 6): a planted database in a
/// folder others can write, or a database of another user, is refused before it is read.
/// No peer is needed: the check runs when the client is made.
@Suite(.timeLimit(.minutes(5))) struct CacheSafetyTests {
    static func factory(_ fixture: AppSyncFixture, folder: String) -> ClientFactory {
        ClientFactory(
            configuration: fixture.configuration, cacheDirectory: folder,
            http: CurlHTTPClient(), credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKID", secretAccessKey: "secret")))
    }

    static func refusal(_ factory: ClientFactory) -> (path: String, description: String)? {
        do {
            _ = try factory.client(named: "Default")
            return nil
        } catch {
            guard case .cache(let cache) = error.kind, case .insecurePermissions(let entry, let path, _, _) = cache.kind, entry == "Default" else { return ("", "\(error)") }
            return (path, error.description)
        }
    }

    @Test func aWorldWritableFolderWithAPlantedDatabaseIsRefused() throws {
        let fixture = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", apiKey: "da2-never-sent")
        try FileManager.default.createDirectory(atPath: fixture.folder, withIntermediateDirectories: true)
        let planted = fixture.folder + "/" + ClientDatabases.fileNames(prefix: fixture.configuration.appSync[0].clientDatabasePrefix)[0]
        try Data("planted".utf8).write(to: URL(fileURLWithPath: planted))
        chmod(fixture.folder, 0o777)
        if geteuid() == 0 { chown(fixture.folder, 65534, 65534) }
        let refusal = try #require(Self.refusal(Self.factory(fixture, folder: fixture.folder)))
        #expect(refusal.path == fixture.folder, "\(refusal.description)")
        #expect(refusal.description.contains("--cache-dir"))
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "planted")
    }

    @Test func aDatabaseOthersCanWriteIsRefused() throws {
        let fixture = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", apiKey: "da2-never-sent")
        _ = try Self.factory(fixture, folder: fixture.folder).client(named: "Default")  // creates folder and files
        let path = fixture.folder + "/" + ClientDatabases.fileNames(prefix: fixture.configuration.appSync[0].clientDatabasePrefix)[0]
        chmod(path, 0o666)
        let refusal = try #require(Self.refusal(Self.factory(fixture, folder: fixture.folder)))
        #expect(refusal.path == path && refusal.description.contains("chmod 644"), "\(refusal.description)")
    }

    @Test(.enabled(if: geteuid() == 0, "chown needs root")) func aDatabaseOfAnotherUserIsRefused() throws {
        let fixture = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", apiKey: "da2-never-sent")
        _ = try Self.factory(fixture, folder: fixture.folder).client(named: "Default")
        let path = fixture.folder + "/" + ClientDatabases.fileNames(prefix: fixture.configuration.appSync[0].clientDatabasePrefix)[1]
        chown(path, 65534, 65534)
        let refusal = try #require(Self.refusal(Self.factory(fixture, folder: fixture.folder)))
        #expect(refusal.path == path && refusal.description.contains("another user"), "\(refusal.description)")
    }

    @Test func aNewFolderIsCreatedPrivate() throws {
        let fixture = try AppSyncFixture(apiURL: "http://127.0.0.1:9/graphql", apiKey: "da2-never-sent")
        _ = try Self.factory(fixture, folder: fixture.folder + "/nested/cache").client(named: "Default")
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.folder + "/nested/cache")
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }
}

import Foundation
import IntegrationSupport
import MultiAuthAWSStoreBackends
import MultiAuthCore
import MultiAuthCredentials
import MultiAuthCurl
import MultiAuthSigV4
import MultiAuthStore
import Testing

/// Eight writers at once behind a lock left by a crashed writer, on the AWS backends (moto;
/// issue 45, item 1). Before every write was conditional and every change of the lock's hands
/// too, the expired lock was deleted blind and two writers could both think they held it, so
/// one write was lost in about half the rounds while every writer reported success.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.available, Peers.reason))
struct AWSStoreConcurrencyTests {
    static let credentials = StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDAWSSTORE", secretAccessKey: "aws-store-secret"))
    static let environment = ["AWS_ENDPOINT_URL": Peers.moto, "AWS_REGION": "us-east-1"]

    /// A backend as a separate host would have it, reading time from `clock`.
    static func backend(_ url: String, clock: TimeSource = .system) throws -> AWSStoreBackend {
        try AWSStoreBackend(url: url, credentials: credentials, http: CurlHTTPClient(), environment: environment, clock: clock)
    }

    @Test(arguments: ["secretsmanager", "ssm"]) func eightWritersBehindAStaleLockLoseNothing(service: String) async throws {
        let folder = try ScratchFolder("multiauth-aws-race")
        defer { folder.remove() }
        try StoreKeyFile.generate(at: folder.path + "/key")
        let url = "\(service)://us-east-1/multiauth-race/" + UUID().uuidString.prefix(8).lowercased()
        func store(_ backend: AWSStoreBackend) -> CredentialStore {
            CredentialStore(backend: backend, keySource: .keyFile(path: folder.path + "/key"), lockTimeout: .seconds(60))
        }
        try await store(try Self.backend(url)).initialize()
        // A writer that crashed: its lock taken with a clock two minutes behind, so it expired
        // long ago, and never released (kept referenced, so not even in the background).
        let past = TimeSource { TimeSource.system.now() - 2 * AWSStoreBackend.lockLifetime.inSeconds }
        var crashed: [any StoreBackendLock] = []
        for round in 0..<20 {
            crashed.append(try await Self.backend(url, clock: past).lock(timeout: .seconds(10)))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        try await store(try Self.backend(url)).set(Array("secret-\(round)-\(writer)".utf8), service: "race", account: "w\(writer)")
                    }
                }
                try await group.waitForAll()
            }
            // Each writer's item holds this round's secret: a lost write leaves an older one
            // (or none, in round 0). The store stays small enough for an SSM parameter.
            let reader = store(try Self.backend(url))
            var lost: [String] = []
            for writer in 0..<8 {
                let secret = try? await reader.get(service: "race", account: "w\(writer)")
                if secret != Array("secret-\(round)-\(writer)".utf8) { lost.append("w\(writer)") }
            }
            #expect(lost.isEmpty, "round \(round): every writer succeeded, yet the writes of \(lost) are gone")
            try #require(lost.isEmpty)
        }
        #expect(try await store(try Self.backend(url)).list().count == 8)
        withExtendedLifetime(crashed) {}
    }

    /// A lock item that is not MultiAuth's (not JSON, or an expiry in 1e300) holds a writer
    /// back for its lock timeout, then is taken over with a warning, never forever.
    @Test(arguments: ["not json at all", #"{"holder":"x","expires":1e300}"#]) func aForeignLockItemIsTakenOverAfterTheTimeout(item: String) async throws {
        let folder = try ScratchFolder("multiauth-aws-foreign")
        defer { folder.remove() }
        try StoreKeyFile.generate(at: folder.path + "/key")
        let name = "multiauth-race/" + UUID().uuidString.prefix(8).lowercased()
        let keyFile = folder.path + "/key"
        let store = CredentialStore(backend: try Self.backend("secretsmanager://us-east-1/" + name), keySource: .keyFile(path: keyFile), lockTimeout: .seconds(1))
        try await store.initialize()
        _ = try await AWSStoreTests.boto3(["sm-put-binary", name + ".lock", item])
        let start = Date()
        let run = try await AWSStoreTests.run(
            ["store", "--lock-timeout", "1", "set", "svc", "acct", "--store", "secretsmanager://us-east-1/" + name, "--key-file", keyFile], input: "v\n")
        #expect(run.status == 0 && run.stderr.contains("not one MultiAuth wrote"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) >= 1)
        #expect(try await store.list().map(\.account) == ["acct"])
    }
}

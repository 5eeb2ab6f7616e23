import Foundation
import IntegrationSupport
import Testing

/// `multiauth clients`, `graphql` and `clear-caches` end to end.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.appSyncAvailable, Peers.reason)) struct AppSyncCLITests {
    @Test func clientsGraphqlAndClearCaches() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-cli-appsync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/awsconfiguration.json"
        try Data("""
            {"AppSync": {"Default": {"ApiUrl": "\(Peers.appSync)", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "\(Peers.apiKey)", "ClientDatabasePrefix": "Cli_API_KEY"},
                         "Cli_AWS_IAM": {"ApiUrl": "\(Peers.appSync)", "Region": "us-east-1", "AuthMode": "AWS_IAM", "ClientDatabasePrefix": "Cli_AWS_IAM"}}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        let base = ["--config", config, "--cache-dir", folder + "/cache"]
        let env = ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret]

        let clients = try await CLI.run(["clients"] + base)
        #expect(clients.status == 0)
        #expect(clients.stdout.contains("Cli_AWS_IAM\tAWS_IAM\t\(Peers.appSync)\tCli_AWS_IAM\t\(folder)/cache/Cli_AWS_IAM_queries.db"))
        #expect(!clients.stdout.contains(Peers.apiKey))

        let id = "cli-\(UUID().uuidString)"
        let add = try await CLI.run(
            ["graphql"] + base + ["--mode", "AWS_IAM", "--query", "mutation { addPost(id: \"\(id)\", author: \"carol\", url: \"https://u\") { id version } }"],
            environment: env)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("\"version\":1"))
        let query = ["--query", "query Q($id: ID!) { getPost(id: $id) { author url } }", "--variables", "{\"id\": \"\(id)\"}"]
        let publicRun = try await CLI.run(["graphql"] + base + ["--client", "Default"] + query)
        #expect(publicRun.stdout.contains("Not Authorized to access url on type Post"))
        let cached = try await CLI.run(["graphql"] + base + ["--client", "Default", "--cache-policy", "returnCacheDataDontFetch"] + query)
        #expect(cached.status == 0)
        #expect(cached.stderr.contains("from the cache"))
        #expect(try await CLI.run(["clear-caches"] + base + ["--client", "Default", "--queries"]).status == 0)
        let miss = try await CLI.run(["graphql"] + base + ["--client", "Default", "--cache-policy", "returnCacheDataDontFetch"] + query)
        #expect(miss.status == 1)
        #expect(miss.stderr.contains("nothing cached"))

        try Data("{\"AppSync\": {\"Default\": {\"ApiUrl\": \"https://x/graphql\", \"Region\": \"r\", \"AuthMode\": \"API_KEY\"}}}".utf8)
            .write(to: URL(fileURLWithPath: config))
        let broken = try await CLI.run(["clients"] + base)
        #expect(broken.status == 2)
        #expect(broken.stdout.contains("AppSync.Default.ApiKey: missing"))
    }

    /// A mutation queued offline was never replayed by the CLI, and a later one overtook it
    /// (issue 19, finding 9): now the next mutation sends the queue first, and --replay sends
    /// it on demand.
    @Test func queuedMutationsAreReplayedInOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-cli-replay-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func config(_ url: String) throws -> [String] {
            let path = folder + "/\(UUID().uuidString).json"
            try Data(#"{"AppSync": {"Post_AWS_IAM": {"ApiUrl": "\#(url)", "Region": "us-east-1", "AuthMode": "AWS_IAM", "ClientDatabasePrefix": "Replay"}}}"#.utf8)
                .write(to: URL(fileURLWithPath: path))
            return ["graphql", "--config", path, "--cache-dir", folder + "/cache", "--client", "Post_AWS_IAM"]
        }
        let env = ["AWS_ACCESS_KEY_ID": Peers.keyId, "AWS_SECRET_ACCESS_KEY": Peers.secret]
        let id = "replay-\(UUID().uuidString)"
        func add(_ title: String) -> [String] {
            ["--query", "mutation { addPost(id: \"\(id)\", author: \"dan\", title: \"\(title)\") { id version } }"]
        }
        let offline = try config("http://127.0.0.1:9/graphql")
        for title in ["first", "second"] {
            let queued = try await CLI.run(offline + add(title), environment: env)
            #expect(queued.status == 0 && queued.stderr.contains("queued"), "\(queued.stderr)")
        }
        let online = try config(Peers.appSync)
        let third = try await CLI.run(online + add("third"), environment: env)
        #expect(third.status == 0 && third.stdout.contains("\"version\":3"), "\(third.stdout) \(third.stderr)")
        let replay = try await CLI.run(online + ["--replay"], environment: env)
        #expect(replay.status == 0 && replay.stderr.contains("replayed 0 queued mutation(s); 0 still queued"), "\(replay.stderr)")
        let queuedAgain = try await CLI.run(offline + add("fourth"), environment: env)
        #expect(queuedAgain.stderr.contains("queued"))
        let replayed = try await CLI.run(online + ["--replay"], environment: env)
        #expect(replayed.stderr.contains("replayed 1 queued mutation(s); 0 still queued"), "\(replayed.stderr)")
        let post = try await CLI.run(online + ["--query", "query { getPost(id: \"\(id)\") { title version } }", "--cache-policy", "fetchIgnoringCacheData"],
                                    environment: env)
        #expect(post.stdout.contains("\"title\": \"fourth\"") && post.stdout.contains("\"version\": 4"), "\(post.stdout)")

        // Processes at once: the queued mutation goes out once, and every new one once.
        _ = try await CLI.run(offline + add("queued"), environment: env)
        let runs = (0..<4).map { index in
            DispatchQueue.global().sync { () -> Process in
                let process = Process()
                process.executableURL = Paths.multiauth
                process.arguments = online + add("parallel-\(index)")
                process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try? process.run()
                return process
            }
        }
        try await offPool { for process in runs { process.waitUntilExit() } }
        #expect(runs.allSatisfy { $0.terminationStatus == 0 })
        let final = try await CLI.run(online + ["--query", "query { getPost(id: \"\(id)\") { version } }", "--cache-policy", "fetchIgnoringCacheData"],
                                     environment: env)
        #expect(final.stdout.contains("\"version\": 9"), "each of 1 queued + 4 new once after version 4: \(final.stdout)")
    }
}

import Foundation
import HTTPTypes
import IntegrationSupport
import Logging
import MultiAuthCore
import MultiAuthCurl
import MultiAuthPostgresStore
import MultiAuthSigV4
import MultiAuthStore
import PostgresNIO
import ServiceLifecycle
import Testing

/// The store on PostgreSQL (issue 37): a private cluster from Debian's package that
/// scripts/test starts; psql, an independent client, shows what the database holds.
@Suite(.timeLimit(.minutes(5)), .enabled(if: Peers.postgresAvailable, "PostgreSQL is not running: use scripts/test"))
struct PostgresStoreTests {
    /// Runs `work` with pools of its own, served for as long as it runs (a host's process).
    static func withPools<T: Sendable>(_ work: (PostgresStorePools) async throws -> T) async throws -> T {
        let pools = PostgresStorePools()
        let outcome: Result<T, any Error> = await pools.serving(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) {
            do { return .success(try await work(pools)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Pools served until `stop()` (a test's `defer`).
    struct ServedPools {
        let pools = PostgresStorePools()
        let group: ServiceGroup

        init() {
            group = ServiceGroup(services: [pools], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            Task { [group] in try await group.run() }
        }

        func stop() { Task { [group] in await group.triggerGracefulShutdown() } }
    }

    /// A store of its own (`?store=NAME`) in a database of its own, so that no test sees
    /// another's rows or schema; a key file in `folder`.
    struct SharedStore {
        let name = "t" + UUID().uuidString.prefix(8).lowercased()
        let folder: ScratchFolder
        /// The test's own database, as a URL without `store=`.
        let database: String
        var url: String { database + "&store=" + name }
        var arguments: [String] { ["--store", url, "--key-file", folder.path + "/key"] }
        static let environment = ["PGPASSWORD": Peers.postgresPassword]

        init() async throws {
            folder = try ScratchFolder("multiauth-pg")
            database = try await PostgresStoreTests.freshDatabase()
        }

        func run(_ arguments: [String], input: String? = nil, home: String? = nil) async throws -> CLI.Run {
            var environment = Self.environment
            if let home { environment["HOME"] = home }
            return try await CLI.run(arguments + self.arguments, environment: environment, input: input)
        }
    }

    /// A new, empty database in the test cluster, as a URL like ``Peers/postgres``.
    static func freshDatabase() async throws -> String {
        let name = "db_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        _ = try await psql("CREATE DATABASE \(name)")
        return Peers.postgres.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }

    /// What psql prints for `sql` (unaligned, tuples only), run in `database` (a URL).
    static func psql(_ sql: String, in database: String = Peers.postgres) async throws -> String {
        let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": Peers.postgresPassword]) { $1 }
        let run = try await offPool {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/psql"), [database, "-X", "-A", "-t", "-c", sql], environment: environment)
        }
        try #require(run.status == 0, "psql: \(String(decoding: run.stderr, as: UTF8.self))")
        return String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theDatabaseHoldsCiphertextOnly() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        let set = try await store.run(["store", "set", "svc", "acct"], input: "postgres-kept-secret-value\n")
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await store.run(["store", "get", "svc", "acct"])
        #expect(get.status == 0 && get.stdout.hasPrefix("postgres-kept-secret-value"), "\(get.stderr)")
        #expect(try await store.run(["store", "list"]).stdout.contains("svc"))

        // psql: one row at version 2 (init, then set), the image starts with the
        // store's magic and holds neither the secret nor the item's names in the clear.
        let row = try await Self.psql("SELECT version, format, encode(image, 'hex') FROM multiauth_store WHERE name = '\(store.name)'", in: store.database)
        let fields = row.split(separator: "|").map(String.init)
        try #require(fields.count == 3, "\(row)")
        #expect(fields[0] == "2" && fields[1] == "1")
        let image = fields[2]
        #expect(image.hasPrefix(Data("MAUTHSTR".utf8).map { String(format: "%02x", $0) }.joined()))
        for plain in ["postgres-kept-secret-value", "svc", "acct"] {
            #expect(!image.contains(Data(plain.utf8).map { String(format: "%02x", $0) }.joined()), "\(plain) in the clear")
        }
        // init never replaces a store; rm works; the row changed only through us.
        let again = try await store.run(["store", "init"])
        #expect(again.status == 2 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try await store.run(["store", "rm", "svc", "acct"]).status == 0)
        #expect(try await store.run(["store", "get", "svc", "acct"]).status == 1)
    }

    /// Sixteen hosts make their stores at once on a fresh database (issue 45, item 2): before
    /// the schema step was locked, `CREATE TABLE IF NOT EXISTS` in two sessions at once failed
    /// with 23505 in about one fresh database of seven at this size (3 of 20 by psql here), so
    /// sixteen fresh databases show it about nine times in ten. Every host's store is made,
    /// and the schema's version is recorded once.
    @Test func sixteenHostsInitialiseAFreshDatabaseAtOnce() async throws {
        var databases: [String] = []
        for _ in 0..<16 {
            let database = try await Self.freshDatabase()
            databases.append(database)
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for host in 0..<16 {
                    group.addTask {
                        let url = try PostgresStoreURL(database + "&store=host\(host)", environment: SharedStore.environment)
                        return try await Self.withPools { pools in
                            do { try await PostgresStoreBackend(url: url, pools: pools).create([1, 2, 3]) } catch { return "host \(host): \(error)" }
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "\(failures)")
            #expect(try await Self.psql("SELECT count(*) FROM multiauth_store", in: database) == "16")
        }
        for database in databases {
            #expect(try await Self.psql("SELECT component || ':' || version FROM multiauth_schema", in: database) == "multiauth_store:1")
        }
    }

    /// Issue 45, item 8: a misspelt `sslMode` was ignored, so the connection fell back to
    /// `prefer` (plaintext when the server offers no TLS). Every unknown parameter is refused,
    /// and a password with delimiters in it is not in the message.
    @Test func unknownURLParametersAreRefusedAndPasswordsNeverShown() throws {
        #expect(throws: StoreError.self) { try PostgresStoreURL("postgres://u@h/db?sslMode=require", environment: [:]) }
        do {
            _ = try PostgresStoreURL("postgres://u:SE/CR?ET#PW@h/db?sslmode=require&sslMode=x", environment: [:])
            Issue.record("a URL with an unknown parameter was taken")
        } catch {
            #expect(!error.description.contains("CR") && !error.description.contains("PW"), "\(error)")
        }
        let url = try PostgresStoreURL("postgres://u@h/db?sslmode=verify-full&store=s&sslrootcert=/x", environment: [:])
        #expect(url.sslMode == "verify-full" && url.storeName == "s")
    }

    /// Issue 45, item 3: a statement stuck behind another session's lock printed the 10 s
    /// limit's message, then waited for the cancelled statement (74 s behind a 75 s lock).
    /// The connection is now closed at the deadline, so the command ends there.
    @Test func aStatementBehindALockEndsAtTheDeadline() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = [store.database, "-X", "-q", "-c", "BEGIN; LOCK TABLE multiauth_store IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(90); COMMIT"]
        holder.environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": Peers.postgresPassword]) { $1 }
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate() }
        let granted = "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'multiauth_store' AND l.mode = 'AccessExclusiveLock' AND l.granted"
        try await RealtimePeer.wait("psql holding the table's lock", seconds: 30) { try await Self.psql(granted, in: store.database) == "1" }
        let start = Date()
        let run = try await store.run(["store", "--lock-timeout", "1", "list"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(run.status == 9 && run.stderr.contains("took longer than 10 s"), "\(run.stderr)")
        #expect(elapsed < 30, "ended after \(elapsed) s, with the lock held for 90 s")
        _ = try await Self.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(90)%' AND pid <> pg_backend_pid()")
    }

    /// A database whose recorded schema is newer than this MultiAuth's is refused, never changed.
    @Test func aNewerSchemaIsRefused() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        _ = try await Self.psql("UPDATE multiauth_schema SET version = 2", in: store.database)
        let other = try PostgresStoreURL(store.database + "&store=another", environment: SharedStore.environment)
        await #expect(throws: StoreError.unsupportedVersion(path: other.location, version: 2)) {
            try await Self.withPools { try await PostgresStoreBackend(url: other, pools: $0).create([1]) }
        }
        #expect(try await Self.psql("SELECT version FROM multiauth_schema", in: store.database) == "2")
    }

    @Test func badLoginsDownServersAndNewerTablesFailClearly() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        // A wrong password: the server's refusal, exit 9; the password is never printed.
        let wrong = try await CLI.run(
            ["store", "list"] + store.arguments, environment: ["PGPASSWORD": "not-the-password-0123"])
        #expect(wrong.status == 9 && wrong.stderr.contains("28P01"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-the-password-0123"))
        // In the URL, it is never printed either.
        let inURL = store.database.replacingOccurrences(of: "multiauth@", with: "multiauth:url-password-0123@") + "&store=" + store.name
        let refused = try await CLI.run(["store", "list", "--store", inURL, "--key-file", store.folder.path + "/key"])
        #expect(refused.status == 9 && !refused.stderr.contains("url-password-0123"), "\(refused.stderr)")
        // A server that is not there: a bounded, clear failure.
        let down = try await CLI.run(
            ["store", "list", "--store", "postgres://multiauth@127.0.0.1:1/postgres?sslmode=disable", "--key-file", store.folder.path + "/key"],
            environment: SharedStore.environment, limit: 30)
        #expect(down.status == 9 && down.stderr.contains("cannot connect to 127.0.0.1:1"), "\(down.stderr)")
        // A row written by a newer version is refused, never rewritten.
        _ = try await Self.psql("UPDATE multiauth_store SET format = 2 WHERE name = '\(store.name)'", in: store.database)
        let newer = try await store.run(["store", "set", "svc", "acct"], input: "x\n")
        #expect(newer.status == 4 && newer.stderr.contains("format version 2"), "\(newer.stderr)")
        #expect(try await Self.psql("SELECT version FROM multiauth_store WHERE name = '\(store.name)'", in: store.database) == "1")
        // A write at a version that is no longer current changes nothing (two hosts at once).
        _ = try await Self.psql("UPDATE multiauth_store SET format = 1 WHERE name = '\(store.name)'", in: store.database)
        let served = ServedPools()
        defer { served.stop() }
        let backend = PostgresStoreBackend(url: try PostgresStoreURL(store.url, environment: SharedStore.environment), pools: served.pools)
        let read = try #require(try await backend.read())
        #expect(try await store.run(["store", "set", "svc", "acct"], input: "y\n").status == 0)
        await #expect(throws: StoreError.conflict(path: backend.location)) { try await backend.replace(read.bytes, expecting: read.version) }
        #expect(try await store.run(["store", "get", "svc", "acct"]).stdout.hasPrefix("y"))
    }

    /// Issue 46: the store's statements run on postgres-nio's pool. Here the pool is the
    /// caller's, run as a service of its `ServiceGroup`, at most 2 connections: 24 reads at
    /// once all answer, and the database (asked by psql) never sees more than 2 of the store's
    /// connections.
    @Test func statementsShareTheCallersPool() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        let url = try PostgresStoreURL(store.url, environment: SharedStore.environment)
        let client = PostgresClient(configuration: url.clientConfiguration(connectTimeout: .seconds(10), maximumConnections: 2))
        let group = ServiceGroup(services: [client], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        defer { running.cancel() }
        let backend = PostgresStoreBackend(url: url, client: client)
        let versions = try await withThrowingTaskGroup(of: String?.self) { reads in
            for _ in 0..<24 { reads.addTask { try await backend.version()?.token } }
            return try await reads.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(versions == Array(repeating: "1", count: 24))
        let open = try await Self.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(url.database)' AND pid <> pg_backend_pid()")
        #expect((Int(open) ?? 99) <= 2, "\(open) connections")
    }

    @Test func theLockIsHeldAcrossHostsAndBounded() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        let served = ServedPools()
        defer { served.stop() }
        let backend = PostgresStoreBackend(url: try PostgresStoreURL(store.url, environment: SharedStore.environment), pools: served.pools)
        let held = try await backend.lock(timeout: .seconds(5))
        let blocked = try await store.run(["store", "--lock-timeout", "0.5", "set", "svc", "acct"], input: "z\n")
        #expect(blocked.status == 7 && blocked.stderr.contains("locked"), "\(blocked.stderr)")
        await held.release()
        let after = try await store.run(["store", "--lock-timeout", "5", "set", "svc", "acct"], input: "z\n")
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// Two gateways on two "hosts" (separate HOME folders) follow one store through
    /// LISTEN/NOTIFY (their polling set to an hour): a key added with `store set` passes on
    /// both, and a removed one is refused on both, within 1 s.
    @Test func twoGatewaysFollowTheStoreWithinASecond() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        #expect(try await store.run(["store", "set", "fleet-keys", "AKIDFLEETFIRST"], input: "fleet-first-secret\n").status == 0)
        var gateways: [GatewayProcess] = []
        for host in ["a", "b"] {
            let home = store.folder.path + "/home-" + host
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            gateways.append(try GatewayProcess(
                ["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--iam-store", "fleet-keys", "--refresh-interval", "3600"]
                    + store.arguments,
                environment: ["HOME": home, "PGPASSWORD": Peers.postgresPassword]))
        }
        defer { for gateway in gateways { #expect(gateway.stop() == 0) } }
        func status(_ gateway: GatewayProcess, _ keyId: String, _ secret: String) async throws -> Int {
            let signer = SigV4Signer(credentials: AWSCredentials(accessKeyId: keyId, secretAccessKey: secret), region: "us-east-1", service: "execute-api")
            let request = try HTTPRequest(method: .get, wireURL: gateway.url + "/fleet")
            return try await CurlHTTPClient().send(try signer.signHeaders(request, payload: .bytes([]), date: SigningDate.now()).signedRequest()).status
        }
        /// Seconds until every gateway answers `expected`, polling every 20 ms for 5 s at most.
        func secondsUntil(_ expected: Int, _ keyId: String, _ secret: String) async throws -> Double {
            let start = Date()
            var pending = gateways
            while !pending.isEmpty, Date().timeIntervalSince(start) < 5 {
                var still: [GatewayProcess] = []
                for gateway in pending where try await status(gateway, keyId, secret) != expected { still.append(gateway) }
                pending = still
                if !pending.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            return pending.isEmpty ? Date().timeIntervalSince(start) : .infinity
        }
        for gateway in gateways {
            #expect(try await status(gateway, "AKIDFLEETFIRST", "fleet-first-secret") == 200, "\(gateway.log)")
            #expect(try await status(gateway, "AKIDFLEETADDED", "fleet-added-secret") == 403)
        }
        #expect(try await store.run(["store", "set", "fleet-keys", "AKIDFLEETADDED"], input: "fleet-added-secret\n").status == 0)
        let added = try await secondsUntil(200, "AKIDFLEETADDED", "fleet-added-secret")
        #expect(added <= 1, "accepted by both after \(added) s: \(gateways.map(\.log))")
        #expect(try await store.run(["store", "rm", "fleet-keys", "AKIDFLEETADDED"]).status == 0)
        let removed = try await secondsUntil(403, "AKIDFLEETADDED", "fleet-added-secret")
        #expect(removed <= 1, "refused by both after \(removed) s: \(gateways.map(\.log))")
        print("two gateways on PostgreSQL: a key added passed on both after \(added) s, a removed one was refused after \(removed) s")
        for gateway in gateways { #expect(try await status(gateway, "AKIDFLEETFIRST", "fleet-first-secret") == 200) }
    }

    /// Issue 45, item 4: someone who can write the table but not read the store (no key)
    /// brought a revoked key back by restoring an older image with its version bumped, or by
    /// copying another store's image; 3,000 NOTIFYs caused 3,000 full reloads. The images are
    /// bound to their store and a generation that only grows, so both are refused (logged),
    /// and notifications only make the gateway look at the version.
    @Test func theKeyDirectoryCannotBeTurnedBackOrFlooded() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        for (key, secret) in [("AKIDFLEETKEEP", "fleet-keep-secret"), ("AKIDFLEETREVOKED", "fleet-revoked-secret")] {
            #expect(try await store.run(["store", "set", "fleet-keys", key], input: secret + "\n").status == 0)
        }
        let row = "WHERE name = '\(store.name)'"
        let withRevoked = try await Self.psql("SELECT encode(image, 'hex') FROM multiauth_store \(row)", in: store.database)
        #expect(try await store.run(["store", "rm", "fleet-keys", "AKIDFLEETREVOKED"]).status == 0)
        // Another store under the same key, whose image holds the revoked key too.
        let other = store.database + "&store=" + store.name + "x"
        let otherArguments = ["--store", other, "--key-file", store.folder.path + "/key"]
        #expect(try await CLI.run(["store", "init"] + otherArguments, environment: SharedStore.environment).status == 0)
        #expect(try await CLI.run(["store", "set", "fleet-keys", "AKIDFLEETREVOKED"] + otherArguments, environment: SharedStore.environment, input: "fleet-revoked-secret\n").status == 0)

        let gateway = try GatewayProcess(
            ["gateway", "--listen", "127.0.0.1:0", "--upstream", Peers.upstream, "--iam-store", "fleet-keys", "--refresh-interval", "3600"] + store.arguments,
            environment: ["HOME": store.folder.path, "PGPASSWORD": Peers.postgresPassword])
        defer { #expect(gateway.stop() == 0) }
        func status(_ keyId: String, _ secret: String) async throws -> Int {
            let signer = SigV4Signer(credentials: AWSCredentials(accessKeyId: keyId, secretAccessKey: secret), region: "us-east-1", service: "execute-api")
            let request = try HTTPRequest(method: .get, wireURL: gateway.url + "/fleet")
            return try await CurlHTTPClient().send(try signer.signHeaders(request, payload: .bytes([]), date: SigningDate.now()).signedRequest()).status
        }
        #expect(try await status("AKIDFLEETKEEP", "fleet-keep-secret") == 200, "\(gateway.log)")
        #expect(try await status("AKIDFLEETREVOKED", "fleet-revoked-secret") == 403)

        // The older image, its version raised so that it looks like the newest write.
        _ = try await Self.psql(
            "UPDATE multiauth_store SET image = decode('\(withRevoked)', 'hex'), version = version + 1 \(row) RETURNING pg_notify('multiauth_store', name)",
            in: store.database)
        #expect(try await gateway.logShows("rolled back"), "\(gateway.log)")
        #expect(try await status("AKIDFLEETREVOKED", "fleet-revoked-secret") == 403)
        // The other store's image, copied in.
        _ = try await Self.psql(
            "UPDATE multiauth_store SET image = (SELECT image FROM multiauth_store WHERE name = '\(store.name)x'), version = version + 1 \(row) RETURNING pg_notify('multiauth_store', name)",
            in: store.database)
        #expect(try await gateway.logShows("was made for store"), "\(gateway.log)")
        #expect(try await status("AKIDFLEETREVOKED", "fleet-revoked-secret") == 403)
        #expect(try await status("AKIDFLEETKEEP", "fleet-keep-secret") == 200)

        // 3,000 notifications for the store, the version unchanged: no reload at all.
        let reloads = gateway.log.components(separatedBy: "reload").count
        _ = try await Self.psql("SELECT count(pg_notify('multiauth_store', '\(store.name)')) FROM generate_series(1, 3000)", in: store.database)
        try await Task.sleep(for: .seconds(1))
        let flooded = gateway.log.components(separatedBy: "reload").count - reloads
        #expect(flooded <= 1, "\(flooded) reload lines after 3,000 notifications: \(gateway.log)")
        #expect(try await status("AKIDFLEETKEEP", "fleet-keep-secret") == 200)
    }

    /// Six hosts (separate HOME folders) run `multiauth token` at once on one login kept in
    /// the shared store, against nanoidp, whose refresh tokens rotate strictly (a spent one is
    /// refused and revokes its family): one refresh happens, under the database's lock, and
    /// the other five use what it saved. All six print the same new token, and the saved
    /// refresh token still works afterwards.
    ///
    /// `--min-validity 7200` is more than a new token's life, so a host that first read the
    /// login after the refresh would rightly refresh again: the test holds the store's lock
    /// until all six wait for it (pg_locks shows them), so all six read the stale login first,
    /// however their starts are spread on a loaded machine.
    @Test(.enabled(if: Peers.oidcAvailable)) func sixHostsRefreshOneLoginOnce() async throws {
        let store = try await SharedStore()
        defer { store.folder.remove() }
        #expect(try await store.run(["store", "init"]).status == 0)
        let cli = try RunningCLI(
            ["login", "oidc", "--issuer", Peers.oidcIssuer, "--client-id", Peers.oidcPublicClient, "--flow", "device"] + store.arguments,
            environment: SharedStore.environment)
        let line = try #require(try await cli.waitForLine { $0.contains("enter the code") })
        let code = try #require(line.split(separator: " ").last.map(String.init))
        _ = try await Peers.python("scripts/peers/oidc_user.py", ["approve-device", Peers.oidcIssuer, code, Peers.oidcUser.0, Peers.oidcUser.1])
        try #require(try await cli.finish().status == 0)
        let before = try await store.run(["token"])
        try #require(before.status == 0, "\(before.stderr)")

        let served = ServedPools()
        defer { served.stop() }
        let backend = PostgresStoreBackend(url: try PostgresStoreURL(store.url, environment: SharedStore.environment), pools: served.pools)
        let held = try await backend.lock(timeout: .seconds(5))
        let waiting = """
            WITH k AS (SELECT hashtextextended('multiauth_store:\(store.name)', 0) AS v)
            SELECT count(*) FROM pg_locks, k WHERE locktype = 'advisory' AND NOT granted
            AND classid = ((v >> 32) & 4294967295)::oid AND objid = (v & 4294967295)::oid
            """
        let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
            for host in 0..<6 {
                let home = store.folder.path + "/home-\(host)"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                group.addTask { try await store.run(["token", "--min-validity", "7200", "--lock-timeout", "60"], home: home) }
            }
            try await RealtimePeer.wait("six hosts waiting for the store's lock", seconds: 50) { try await Self.psql(waiting, in: store.database) == "6" }
            await held.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let tokens = Set(runs.map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(tokens.count == 1 && !tokens.contains(before.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(tokens.count) tokens")
        let after = try await store.run(["token", "--min-validity", "7200"])
        #expect(after.status == 0, "the saved refresh token was refused: \(after.stderr)")
    }
}

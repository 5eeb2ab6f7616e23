import Logging
@testable import MultiAuthPostgresStore
import PostgresNIO
import Testing

/// The pools a process's stores share, without a server (a pool connects only when used):
/// one per database and login, whatever the store's row; `serving` runs them for its work.
struct PostgresStorePoolsTests {
    static func url(_ text: String) throws -> PostgresStoreURL {
        try PostgresStoreURL(text, environment: [:])
    }

    @Test func storesOfOneDatabaseAndLoginShareOnePool() throws {
        let pools = PostgresStorePools()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let one = pools.pool(for: try Self.url("postgres://app@db.internal:5432/fleet?store=alpha"), connectTimeout: .seconds(10), logger: logger)
        let two = pools.pool(for: try Self.url("postgres://app@db.internal:5432/fleet?store=beta"), connectTimeout: .seconds(10), logger: logger)
        let otherDatabase = pools.pool(for: try Self.url("postgres://app@db.internal:5432/other?store=alpha"), connectTimeout: .seconds(10), logger: logger)
        let otherLogin = pools.pool(for: try Self.url("postgres://ops@db.internal:5432/fleet?store=alpha"), connectTimeout: .seconds(10), logger: logger)
        #expect(one === two)
        #expect(one !== otherDatabase && one !== otherLogin && otherDatabase !== otherLogin)
    }

    /// The work's result comes back once the group has shut down, pools made during it included.
    @Test func servingRunsThePoolsAroundTheWorkThenStops() async throws {
        let pools = PostgresStorePools()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let url = try Self.url("postgres://app@127.0.0.1:1/fleet?store=alpha")
        let answer = await pools.serving(logger: logger) { () async -> Int in
            _ = pools.pool(for: url, connectTimeout: .seconds(1), logger: logger)
            return 42
        }
        #expect(answer == 42)
    }
}

import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Expiry read through the injected clock, not the machine's: credentials that expire at
/// 2023-11-14T22:13:20Z (1,700,000,000 s, worked out by hand) are good a second before and
/// refused at that instant.
struct ExpiryClockTests {
    static let expiry = Date(timeIntervalSince1970: 1_700_000_000)
    static func clock(_ seconds: Double) -> TimeSource { TimeSource { seconds } }

    @Test func staticCredentialsExpireByTheClock() async throws {
        let keys = AWSCredentials(accessKeyId: "AKIDCLOCK", secretAccessKey: "clock-secret")
        _ = try await StaticCredentialsProvider(keys, expiration: Self.expiry, clock: Self.clock(1_699_999_999)).credentials()
        await #expect(throws: CredentialsError.self) {
            _ = try await StaticCredentialsProvider(keys, expiration: Self.expiry, clock: Self.clock(1_700_000_000)).credentials()
        }
    }

    @Test func theEnvironmentsExpirationIsComparedWithTheClock() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKIDCLOCK", "AWS_SECRET_ACCESS_KEY": "clock-secret", "AWS_CREDENTIAL_EXPIRATION": "2023-11-14T22:13:20Z"]
        #expect(try EnvironmentCredentialsProvider(environment: environment, clock: Self.clock(1_699_999_999)).read().expiration == Self.expiry)
        #expect(throws: CredentialsError.self) { _ = try EnvironmentCredentialsProvider(environment: environment, clock: Self.clock(1_700_000_000)).read() }
    }
}

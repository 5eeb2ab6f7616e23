import IntegrationSupport
import MultiAuthCore
import MultiAuthCurl
import MultiAuthTokens
import Synchronization
import Testing

/// When the gateway's key set is fetched again. The fetch is a stand-in that numbers its
/// answers (a provider cannot be made to rotate its keys on cue); the clock is driven by hand.
/// The fetch itself, against a real provider's JWKS URL, is the last case.
@Suite(.timeLimit(.minutes(5))) struct JSONWebKeySetCacheTests {
    final class Provider: Sendable {
        let fetches = Mutex(0)
        let time = Mutex(0.0)
        let failing = Mutex(false)
        var clock: TimeSource { TimeSource { [self] in time.withLock { $0 } } }

        /// Answer n holds the keys "k0" … "k(n-1)": each fetch adds a newer key.
        func fetch() throws(TokenError) -> JSONWebKeySet {
            if failing.withLock({ $0 }) { throw .unreachable(provider: "the key set", problem: "down") }
            let count = fetches.withLock { value in
                value += 1
                return value
            }
            return JSONWebKeySet(keys: (0..<count).map { JSONWebKey(kty: "RSA", kid: "k\($0)") })
        }

        func cache() async throws -> JSONWebKeySetCache {
            try await JSONWebKeySetCache(maxAge: .seconds(3_600), refetchInterval: .seconds(60), clock: clock) { [self] () throws(TokenError) in try fetch() }
        }

        func at(_ seconds: Double) { time.withLock { $0 = seconds } }
    }

    static func kids(_ set: JSONWebKeySet) -> [String] { set.keys.compactMap(\.kid) }

    @Test func aKnownKeyNeverCausesAFetch() async throws {
        let provider = Provider()
        let cache = try await provider.cache()
        provider.at(3_599)
        #expect(Self.kids(await cache.keys(for: "k0")) == ["k0"])
        #expect(Self.kids(await cache.keys(for: nil)) == ["k0"])
        #expect(await cache.refetches == 0)
    }

    @Test func keysAreGivenWithoutWaitingOnlyWhenNoFetchIsDue() async throws {
        let provider = Provider()
        let cache = try await provider.cache()
        provider.at(3_599)
        #expect(cache.keysWithoutWaiting(for: "k0").map(Self.kids) == ["k0"])
        #expect(cache.keysWithoutWaiting(for: nil).map(Self.kids) == ["k0"])
        #expect(cache.keysWithoutWaiting(for: "k1") == nil)  // a key the set lacks: a fetch may be due
        provider.at(3_600)
        #expect(cache.keysWithoutWaiting(for: "k0") == nil)  // as old as maxAge
        #expect(Self.kids(await cache.keys(for: "k0")) == ["k0", "k1"])  // the waiting call fetches
        #expect(cache.keysWithoutWaiting(for: "k1").map(Self.kids) == ["k0", "k1"])
        #expect(await cache.refetches == 1)
    }

    @Test func anUnknownKeyIsFetchedAtMostOnceAMinute() async throws {
        let provider = Provider()
        let cache = try await provider.cache()
        provider.at(59)
        #expect(Self.kids(await cache.keys(for: "k1")) == ["k0"])  // too soon after the first fetch
        provider.at(60)
        #expect(Self.kids(await cache.keys(for: "k1")) == ["k0", "k1"])
        provider.at(119)
        #expect(Self.kids(await cache.keys(for: "forged")) == ["k0", "k1"])
        #expect(await cache.refetches == 1)
        provider.at(120)
        #expect(Self.kids(await cache.keys(for: "forged")) == ["k0", "k1", "k2"])
        #expect(await cache.refetches == 2)
    }

    @Test func manyTokensNamingANewKeyShareOneFetch() async throws {
        let provider = Provider()
        let cache = try await provider.cache()
        provider.at(500)
        let seen = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<200 { group.addTask { Self.kids(await cache.keys(for: "k1")) } }
            return await group.reduce(into: Set<[String]>()) { $0.insert($1) }
        }
        #expect(seen == [["k0", "k1"]])
        #expect(provider.fetches.withLock { $0 } == 2)
    }

    @Test func anOldSetIsFetchedAgainAndAFailedFetchKeepsIt() async throws {
        let provider = Provider()
        let cache = try await provider.cache()
        provider.failing.withLock { $0 = true }
        provider.at(3_600)
        #expect(Self.kids(await cache.keys(for: "k0")) == ["k0"])
        provider.failing.withLock { $0 = false }
        provider.at(3_630)
        #expect(Self.kids(await cache.keys(for: "k0")) == ["k0"])  // the failed attempt counts
        provider.at(3_660)
        #expect(Self.kids(await cache.keys(for: "k0")) == ["k0", "k1"])
    }

    @Test(.enabled(if: Peers.available, Peers.reason)) func theSetIsFetchedFromTheProvidersURL() async throws {
        let setup = try #require(Peers.setup)
        let cache = try await JSONWebKeySetCache(url: setup.jwksUrl, sender: CurlHTTPClient())
        #expect(!(await cache.keys(for: nil)).keys.isEmpty)
        await #expect {
            _ = try await JSONWebKeySetCache(url: Peers.api + "/open/not-a-key-set", sender: CurlHTTPClient())
        } throws: { error in
            guard case .malformedResponse? = (error as? TokenError)?.kind else { return false }
            return true
        }
    }
}

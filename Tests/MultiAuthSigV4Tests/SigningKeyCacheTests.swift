import MultiAuthCrypto
import MultiAuthSigV4
import Testing

@Suite(.timeLimit(.minutes(5))) struct SigningKeyCacheTests {
    @Test func cachedKeysEqualFreshDerivations() {
        let cache = SigningKeyCache(capacity: 2)
        let message = Array("string to sign".utf8)
        for (date, region) in [("20150830", "us-east-1"), ("20150831", "us-east-1"), ("20150830", "eu-west-1")] {
            let fresh = SigningKeyDerivation.derive(secret: "s", scopeDate: date, region: region, service: "svc")
            let cached = cache.key(secret: "s", scopeDate: date, region: region, service: "svc")
            #expect(fresh.authenticationCode(for: message) == cached.authenticationCode(for: message))
        }
        #expect(cache.count == 2)
    }

    @Test func aDifferentSecretIsADifferentKey() {
        let cache = SigningKeyCache()
        let message = Array("m".utf8)
        let first = cache.key(secret: "a", scopeDate: "20150830", region: "r", service: "s").authenticationCode(for: message)
        let second = cache.key(secret: "b", scopeDate: "20150830", region: "r", service: "s").authenticationCode(for: message)
        #expect(first != second)
    }

    /// The derivation example of the AWS SigV4 documentation ("Examples of how to derive a
    /// signing key"): secret, 20120215, us-east-1, iam.
    @Test func documentedDerivedKey() {
        let key = SigningKeyDerivation.derive(
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", scopeDate: "20120215", region: "us-east-1", service: "iam")
        let reference = HMACSHA256Key(
            key: try! Hex.decode("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"))
        let message = Array("probe".utf8)
        #expect(key.authenticationCode(for: message) == reference.authenticationCode(for: message))
    }

    @Test func concurrentSignersThroughASmallCacheAgreeWithFreshDerivations() async throws {
        let cache = SigningKeyCache(capacity: 2)
        let request = try SignableRequest(method: "GET", url: "https://example.com/x?b=2&a=1")
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let region = "us-east-\(index % 5 + 1)"
                    let cached = SigV4Signer(credentials: exampleCredentials, region: region, service: "service", keyCache: cache)
                    let fresh = SigV4Signer(credentials: exampleCredentials, region: region, service: "service", keyCache: nil)
                    let same = try cached.signHeaders(request, date: exampleDate).signature
                        == fresh.signHeaders(request, date: exampleDate).signature
                    return same ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(cache.count <= 2)
    }
}

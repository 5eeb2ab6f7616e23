import Foundation
import IntegrationSupport
import MultiAuthCore
import MultiAuthCrypto
@testable import MultiAuthTokens
import Synchronization
import Testing

/// Cognito SRP, SECRET_HASH and ID-token validation checked against independent
/// implementations: pycognito (SRP) and joserfc (JOSE), both run from the project's .venv.
@Suite(.timeLimit(.minutes(5))) struct TokenCryptoCrossCheckTests {
    struct SRPCase: Codable {
        let a: String, pool_id: String, user_id: String, password: String, b: String, salt: String, secret_block: String
        let unix_time: Int64, client_id: String, client_secret: String
    }

    struct SRPAnswer: Codable {
        let A: String, u: String, x: String, S: String, key: String, timestamp: String, signature: String, secret_hash: String
    }

    static func randomHex(_ count: Int) -> String { Hex.encode((0..<count).map { _ in UInt8.random(in: 0...255) }) }

    static func srpCases() -> [SRPCase] {
        (0..<24).map { index in
            // Salts with a leading zero digit or a high first digit exercise Cognito's padding.
            let salt = ["0", "8", "f", ""][index % 4] + randomHex(15 + index % 3)
            return SRPCase(
                a: randomHex(index % 3 == 0 ? 32 : 128), pool_id: "us-east-1_Pool\(index)", user_id: "user-\(UUID().uuidString.lowercased())",
                password: "pässword \(index) \(randomHex(6))", b: randomHex(index % 2 == 0 ? 384 : 200), salt: salt,
                secret_block: Data((0..<(50 + index)).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
                unix_time: Int64.random(in: 0...4_102_444_800), client_id: "client\(index)", client_secret: Self.randomHex(18))
        }
    }

    @Test func srpAndSecretHashMatchPycognitoAtEveryStage() async throws {
        let cases = Self.srpCases()
        let input = try cases.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        let lines = try await Peers.python("scripts/oracles/pycognito_srp.py", [], input: input).split(separator: "\n")
        try #require(lines.count == cases.count)
        for (testCase, line) in zip(cases, lines) {
            let expected = try JSONDecoder().decode(SRPAnswer.self, from: Data(line.utf8))
            let srp = try CognitoSRP(secret: try Hex.decode(testCase.a))
            let timestamp = CognitoSRP.timestamp(unixTime: testCase.unix_time)
            let values = try srp.intermediates(
                challenge: .init(serverB: testCase.b, salt: testCase.salt, secretBlock: testCase.secret_block, userIdForSRP: testCase.user_id),
                password: Array(testCase.password.utf8), poolName: String(testCase.pool_id.split(separator: "_")[1]), timestamp: timestamp)
            #expect(srp.largeA.hex == expected.A)
            #expect(values.u.hex == expected.u)
            #expect(values.x.hex == expected.x)
            #expect(values.s.hex == expected.S)
            #expect(Hex.encode(values.key) == expected.key)
            #expect(timestamp == expected.timestamp)
            #expect(values.signature == expected.signature)
            #expect(
                CognitoSecretHash.compute(username: testCase.user_id, clientId: testCase.client_id, clientSecret: testCase.client_secret)
                    == expected.secret_hash)
        }
    }

    struct DeviceCase: Codable {
        let group: String, device: String, device_password: String, salt: String, a: String, b: String, secret_block: String, unix_time: Int64
    }

    struct DeviceAnswer: Codable {
        let device_password: String, salt_hex: String, verifier: String, salt: String, timestamp: String, signature: String
    }

    /// Device SRP: the ConfirmDevice verifier and the DEVICE_PASSWORD_VERIFIER signature from
    /// the same device password, salt, a and challenge as pycognito's generate_hash_device and
    /// process_device_challenge.
    @Test func deviceSRPMatchesPycognito() async throws {
        let cases = (0..<16).map { index in
            DeviceCase(
                group: "-\(Self.randomHex(8))", device: "us-east-1_\(UUID().uuidString.lowercased())", device_password: Self.randomHex(40),
                salt: ["00", "80", "ff", ""][index % 4] + Self.randomHex(index % 4 == 3 ? 16 : 15), a: Self.randomHex(128),
                b: Self.randomHex(index % 2 == 0 ? 384 : 200), secret_block: Data((0..<(40 + index)).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
                unix_time: Int64.random(in: 0...4_102_444_800))
        }
        let input = try cases.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        let lines = try await Peers.python("scripts/oracles/pycognito_device_srp.py", [], input: input).split(separator: "\n")
        try #require(lines.count == cases.count)
        for (testCase, line) in zip(cases, lines) {
            let expected = try JSONDecoder().decode(DeviceAnswer.self, from: Data(line.utf8))
            let password = Base64.encode(try Hex.decode(testCase.device_password))
            #expect(password == expected.device_password)
            let made = try CognitoSRP.deviceVerifier(groupKey: testCase.group, deviceKey: testCase.device, password: password, salt: try Hex.decode(testCase.salt))
            #expect(made.verifier == expected.verifier && made.salt == expected.salt)
            let device = CognitoRememberedDevice(deviceKey: testCase.device, groupKey: testCase.group, password: password)
            let timestamp = CognitoSRP.timestamp(unixTime: testCase.unix_time)
            let values = try CognitoSRP(secret: try Hex.decode(testCase.a)).deviceIntermediates(
                challenge: .init(serverB: testCase.b, salt: expected.salt_hex, secretBlock: testCase.secret_block, userIdForSRP: "u"),
                device: device, timestamp: timestamp)
            #expect(timestamp == expected.timestamp && values.signature == expected.signature)
        }
    }

    @Test func timestampFollowsCognitosFormat() {
        // Hand-derived: 2024-03-05 09:04:03 UTC was a Tuesday; 1970-01-01 a Thursday.
        #expect(CognitoSRP.timestamp(unixTime: 1_709_629_443) == "Tue Mar 5 09:04:03 UTC 2024")
        #expect(CognitoSRP.timestamp(unixTime: 0) == "Thu Jan 1 00:00:00 UTC 1970")
        #expect(CognitoSRP.timestamp(unixTime: 951_782_400) == "Tue Feb 29 00:00:00 UTC 2000")
    }

    @Test func hostileServerValuesAreRejected() throws {
        let srp = try CognitoSRP(secret: [1, 2, 3])
        let n = try #require(CognitoSRP.prime)
        for b in ["0", n.hex, try n.multiplying(BigNumber(2)).hex] {
            #expect(throws: TokenError.self) {
                try srp.claimSignature(
                    challenge: .init(serverB: b, salt: "ab", secretBlock: "AAAA", userIdForSRP: "u"), password: [], poolName: "p", timestamp: "t")
            }
        }
        #expect(throws: TokenError.self) {
            try srp.claimSignature(challenge: .init(serverB: "zz", salt: "ab", secretBlock: "AAAA", userIdForSRP: "u"), password: [], poolName: "p", timestamp: "t")
        }
    }

    @Test func base64MatchesFoundation() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let standard = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == standard)
            #expect(try Base64.decode(standard) == bytes)
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64.encodeURL(bytes) == url)
            #expect(try Base64.decode(url) == bytes)
        }
        #expect(throws: CryptoError.self) { try Base64.decode("ab$d") }
    }

    struct JoseOutput: Decodable {
        struct Case: Decodable { let name: String, token: String, valid: Bool }
        let jwks: JSONWebKeySet
        let cases: [Case]
    }

    @Test func idTokenValidationAgreesWithJoserfc() async throws {
        let now: Int64 = 1_800_000_000
        let output = try JSONDecoder().decode(
            JoseOutput.self,
            from: Data(try await Peers.python("scripts/oracles/jose_tokens.py", ["https://issuer.example", "client-1", "nonce-1", String(now)]).utf8))
        let validator = IDTokenValidator(issuer: "https://issuer.example", clientId: "client-1", keys: output.jwks, clock: TimeSource { Double(now) })
        try #require(output.cases.count >= 16)
        for testCase in output.cases {
            let result = Result { () throws(InvalidTokenError) in try validator.validate(testCase.token, nonce: "nonce-1") }
            switch result {
            case .success: #expect(testCase.valid, "accepted: \(testCase.name)")
            case .failure(let error):
                #expect(!testCase.valid, "rejected: \(testCase.name): \(error)")
                #expect(!error.description.contains(testCase.token))
            }
        }
    }

    /// Access tokens as API Gateway's authorizers judge their audience: an HTTP API's JWT
    /// authorizer takes `aud` among its audiences, or without `aud` a `client_id` among them;
    /// a Cognito user pool authorizer takes any (joserfc signs the tokens).
    @Test func accessTokenAudiencesAreAPIGateways() async throws {
        struct Output: Decodable {
            struct Case: Decodable { let name: String, token: String, valid: Bool, validForAny: Bool }
            let jwks: JSONWebKeySet
            let cases: [Case]
        }
        let now: Int64 = 1_800_000_000
        let output = try JSONDecoder().decode(
            Output.self,
            from: Data(try await Peers.python("scripts/oracles/jose_tokens.py", ["https://issuer.example", "client-1", "n", String(now), "access"]).utf8))
        try #require(output.cases.count == 6)
        let clock = TimeSource { Double(now) }
        let listed = IDTokenValidator(issuer: "https://issuer.example", audiences: ["client-1", "second"], keys: output.jwks, clock: clock)
        let any = IDTokenValidator(issuer: "https://issuer.example", audiences: [], keys: output.jwks, clock: clock)
        for testCase in output.cases {
            #expect(((try? listed.validate(testCase.token)) != nil) == testCase.valid, "listed audiences: \(testCase.name)")
            #expect(((try? any.validate(testCase.token)) != nil) == testCase.validForAny, "any audience: \(testCase.name)")
        }
    }

    /// The gateway's cache of validated tokens gives joserfc's verdicts, cold and warm, and
    /// stops passing a remembered token once its expiry (with the leeway) has gone by or its
    /// key has left the key set.
    @Test func validatedTokenCacheAgreesWithJoserfcAndForgetsWhatNoLongerPasses() async throws {
        let start: Int64 = 1_800_000_000
        let output = try JSONDecoder().decode(
            JoseOutput.self,
            from: Data(try await Peers.python("scripts/oracles/jose_tokens.py", ["https://issuer.example", "client-1", "nonce-1", String(start)]).utf8))
        let clock = Mutex(start)
        let validator = IDTokenValidator(issuer: "https://issuer.example", clientId: "client-1", keys: output.jwks, clock: TimeSource { Double(clock.withLock { $0 }) })
        let cache = ValidatedTokenCache()
        // The cache checks no nonce (a server has none to compare), so that case is left out.
        let cases = output.cases.filter { $0.name != "nonce of another login" }
        for _ in 0..<2 {
            for testCase in cases {
                let passed = (try? cache.claims(of: testCase.token, validator: validator)) != nil
                #expect(passed == testCase.valid, "\(testCase.name)")
            }
        }
        #expect(cache.count == cases.filter(\.valid).count)

        // exp = start - 30 with a 60 s leeway: accepted up to start + 29, remembered or not.
        let nearlyExpired = try #require(cases.first { $0.name == "expired 30 s ago, within the leeway" }?.token)
        clock.withLock { $0 = start + 29 }
        #expect((try? cache.claims(of: nearlyExpired, validator: validator)) != nil)
        clock.withLock { $0 = start + 30 }
        #expect(throws: InvalidTokenError.self) { try cache.claims(of: nearlyExpired, validator: validator) }

        // A key set without "rs1": its remembered tokens are checked again, and fail.
        let rotated = validator.using(JSONWebKeySet(keys: output.jwks.keys.filter { $0.kid != "rs1" }))
        let rs256 = try #require(cases.first { $0.name == "rs256 valid" }?.token)
        #expect(throws: InvalidTokenError.self) { try cache.claims(of: rs256, validator: rotated) }
        #expect((try? cache.claims(of: rs256, validator: validator)) != nil)
    }
}

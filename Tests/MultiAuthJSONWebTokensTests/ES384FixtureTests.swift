import MultiAuthCore
import MultiAuthJSONWebTokens
import Testing

/// ES384 (ECDSA P-384 with SHA-384), as STS's GetWebIdentityToken can sign: a token signed by
/// joserfc (an independent implementation) with a key it generated, kept here with its public
/// JWK. The same token with a changed signature, another audience, or a P-256 key is refused.
struct ES384FixtureTests {
    static let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzM4NCIsImtpZCI6ImVzMzg0LWZpeHR1cmUifQ."
        + "eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwiYXVkIjoiY2xpZW50LTEiLCJzdWIiOiJ3b3JrbG9hZCIsImV4cCI6MjAwMDAwMDAwMCwiaWF0IjoxOTAwMDAwMDAwfQ."
        + "QvxsEU1A-tXjJAoXYRGrjotnXKPMfSUBJWMDhRzk-nwL_HIPMw7ZcpevTuDd9tXQcILRFaSRi4n6c8wtaq6T4c3_c8013ixAmefiICT3VIlLKSg_596yOinu2r6toqgS"
    static let key = JSONWebKey(
        kty: "EC", kid: "es384-fixture", crv: "P-384", x: "KrnDJN1leoE2iauBgillMw1OdbfxTOf1aW5SnFAJMclu6XE_3HcjQ_uAkWHZN7E-",
        y: "2K9ZSXEHT13clRWesx8FSbJbqAxBsO10twvpOsuYOluAznnUndzCFz8hhCK_2zom")

    static func validator(audience: String = "client-1", key: JSONWebKey = key) -> IDTokenValidator {
        IDTokenValidator(issuer: "https://issuer.example", clientId: audience, keys: JSONWebKeySet(keys: [key]), clock: TimeSource { 1_900_000_100 })
    }

    @Test func joserfcsTokenIsAccepted() throws {
        let claims = try Self.validator().validate(Self.token)
        #expect(claims.subject == "workload")
    }

    @Test func tamperedOtherAudienceOrWrongCurveIsRefused() {
        let flipped = String(Self.token.dropLast(2)) + (Self.token.hasSuffix("gS") ? "gT" : "gS")
        #expect(throws: InvalidTokenError.self) { try Self.validator().validate(flipped) }
        #expect(throws: InvalidTokenError.self) { try Self.validator(audience: "client-2").validate(Self.token) }
        let p256 = JSONWebKey(kty: "EC", kid: "es384-fixture", crv: "P-256", x: Self.key.x, y: Self.key.y)
        #expect(throws: InvalidTokenError.self) { try Self.validator(key: p256).validate(Self.token) }
    }
}

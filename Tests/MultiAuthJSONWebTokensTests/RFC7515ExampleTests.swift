import MultiAuthCore
import MultiAuthJSONWebTokens
import Testing

/// The JWS examples of RFC 7515, appendix A: tokens signed by the RFC's authors with keys the
/// RFC prints, so a signature check that passes here agrees with an independent signer. Their
/// payload is `{"iss":"joe","exp":1300819380,"http://example.com/is_root":true}` with no `aud`,
/// so a token whose signature verifies fails next on the audience: the reason tells which
/// check ended it.
struct RFC7515ExampleTests {
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// Appendix A.2: RS256.
    static let rs256 = "eyJhbGciOiJSUzI1NiJ9." + payload + "."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZ"
        + "cAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-e"
        + "OkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let rsaKey = JSONWebKey(
        kty: "RSA", kid: nil,
        n: "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_"
            + "YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uD"
            + "Zlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
        e: "AQAB")

    /// Appendix A.3: ES256.
    static let es256 = "eyJhbGciOiJFUzI1NiJ9." + payload + "."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let ecKey = JSONWebKey(
        kty: "EC", kid: nil, crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")

    /// Appendix A.1: HS256, which a verifier of provider-issued tokens must never accept.
    static let hs256 = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." + payload + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    /// A moment before the examples' `exp`, so expiry never decides.
    static func validator(_ keys: [JSONWebKey], issuer: String = "joe") -> IDTokenValidator {
        IDTokenValidator(issuer: issuer, clientId: "client-1", keys: JSONWebKeySet(keys: keys), clock: TimeSource { 1_300_819_000 })
    }

    static func reason(_ token: String, _ validator: IDTokenValidator) -> String? {
        do {
            try validator.validate(token)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test(arguments: [(rs256, rsaKey), (es256, ecKey)])
    func theRFCsSignaturesVerify(token: String, key: JSONWebKey) {
        #expect(Self.reason(token, Self.validator([key])) == "audience does not include client 'client-1'")
        #expect(Self.reason(token, Self.validator([key], issuer: "someone else")) == "issuer 'joe' is not 'someone else'")
    }

    @Test(arguments: [(rs256, rsaKey), (es256, ecKey)])
    func aChangedPayloadFailsTheSignature(token: String, key: JSONWebKey) {
        // "joe" -> "jod": the same length and still valid JSON, signed by nobody.
        let forged = token.replacing("eyJpc3MiOiJqb2Ui", with: "eyJpc3MiOiJqb2Qi", maxReplacements: 1)
        #expect(forged != token)
        #expect(Self.reason(forged, Self.validator([key])) == "the signature does not verify")
    }

    @Test func aKeyOfTheOtherTypeCannotCheckIt() {
        #expect(Self.reason(Self.rs256, Self.validator([Self.ecKey])) == "the token names no key and the key set has 0 that could match")
        #expect(Self.reason(Self.es256, Self.validator([Self.rsaKey, Self.ecKey])) == "audience does not include client 'client-1'")
    }

    @Test func hmacAndNoneAreNeverAccepted() {
        #expect(Self.reason(Self.hs256, Self.validator([Self.rsaKey])) == "algorithm HS256 is not accepted")
        // {"alg":"none"} with an empty signature.
        #expect(Self.reason("eyJhbGciOiJub25lIn0." + Self.payload + ".", Self.validator([Self.rsaKey])) == "algorithm none is not accepted")
    }

    @Test func theParsedExampleHasItsClaims() throws {
        let token = try JSONWebToken(parsing: Self.rs256)
        #expect(token.header.alg == "RS256" && token.header.kid == nil)
        #expect(token.claims.issuer == "joe" && token.claims.expiresAt == 1_300_819_380 && token.claims.audiences.isEmpty)
        #expect(token.signature.count == 256)
    }
}

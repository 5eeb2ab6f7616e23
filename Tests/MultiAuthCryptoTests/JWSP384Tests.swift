import MultiAuthCrypto
import Testing

/// ES384 in the module that checks it: joserfc's signature (an independent signer) over a JWS
/// signing input, under its P-384 key; one changed byte of message or signature fails.
@Suite struct JWSP384Tests {
    static let input = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzM4NCIsImtpZCI6ImVzMzg0LWZpeHR1cmUifQ."
        + "eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwiYXVkIjoiY2xpZW50LTEiLCJzdWIiOiJ3b3JrbG9hZCIsImV4cCI6MjAwMDAwMDAwMCwiaWF0IjoxOTAwMDAwMDAwfQ"
    static let signature = "QvxsEU1A-tXjJAoXYRGrjotnXKPMfSUBJWMDhRzk-nwL_HIPMw7ZcpevTuDd9tXQcILRFaSRi4n6c8wtaq6T4c3_c8013ixAmefiICT3VIlLKSg_596yOinu2r6toqgS"

    static func key() throws -> JWSPublicKey {
        .p384(x: try Base64.decode("KrnDJN1leoE2iauBgillMw1OdbfxTOf1aW5SnFAJMclu6XE_3HcjQ_uAkWHZN7E-"),
              y: try Base64.decode("2K9ZSXEHT13clRWesx8FSbJbqAxBsO10twvpOsuYOluAznnUndzCFz8hhCK_2zom"))
    }

    @Test func joserfcsSignatureVerifiesAndAChangedByteDoesNot() throws {
        let signature = try Base64.decode(Self.signature)
        #expect(signature.count == 96)
        #expect(try Self.key().isValidSignature(signature, for: Array(Self.input.utf8)))
        #expect(try !Self.key().isValidSignature(signature, for: Array((Self.input + "x").utf8)))
        var changed = signature
        changed[10] ^= 1
        #expect(try !Self.key().isValidSignature(changed, for: Array(Self.input.utf8)))
        #expect(try !Self.key().isValidSignature(Array(signature.prefix(64)), for: Array(Self.input.utf8)), "a P-256-sized signature")
    }
}

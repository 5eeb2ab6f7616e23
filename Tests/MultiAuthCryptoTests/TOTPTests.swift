import MultiAuthCrypto
import Testing

/// TOTP against RFC 6238's own test vectors (Appendix B, HMAC-SHA1, 8 digits, the ASCII
/// secret "12345678901234567890") and base32 against RFC 4648's.
@Suite(.timeLimit(.minutes(5))) struct TOTPTests {
    @Test(arguments: [
        (Int64(59), "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfc6238Vectors(time: Int64, code: String) {
        let generator = TOTPGenerator(key: Array("12345678901234567890".utf8), digits: 8)
        #expect(generator.code(at: time) == code)
    }

    @Test func base32SecretsDecodeAsRFC4648Says() throws {
        #expect(try Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == Array("12345678901234567890".utf8))
        #expect(try Base32.decode("MZXW6YTBOI======") == Array("foobar".utf8))
        #expect(try Base32.decode("mzxw 6ytb oi") == Array("foobar".utf8))
        #expect(throws: CryptoError.invalidBase32) { try Base32.decode("MZXW1") }
        // Six digits are the last six of the eight.
        #expect(try TOTPGenerator(base32Secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").code(at: 59) == "287082")
    }

    @Test func theSecretNeverPrints() throws {
        let generator = try TOTPGenerator(base32Secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(!"\(generator)".contains("GEZ") && !String(reflecting: generator).contains("49"))
    }
}

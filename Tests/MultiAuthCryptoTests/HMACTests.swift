import CLibCrypto
import MultiAuthCrypto
import Testing

/// HMAC-SHA256 against RFC 4231's test cases, and against OpenSSL's own `HMAC()`.
@Suite(.timeLimit(.minutes(5))) struct HMACTests {
    static let longKey = [UInt8](repeating: 0xaa, count: 131)

    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (longKey, "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (longKey,
         "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(key: [UInt8], data: String, mac: String) {
        #expect(HMACSHA256Key(key: key).authenticationCode(for: Array(data.utf8)).hex == mac)
    }

    @Test func rfc4231Case3BinaryData() {
        let key = [UInt8](repeating: 0xaa, count: 20)
        let data = [UInt8](repeating: 0xdd, count: 50)
        #expect(HMACSHA256Key(key: key).authenticationCode(for: data).hex
            == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    }

    @Test func agreesWithOpenSSLOneShotHMACOnRandomInputs() throws {
        for length in [0, 1, 31, 32, 63, 64, 65, 200] {
            let key = try SecureRandom.bytes(count: length)
            let message = try SecureRandom.bytes(count: length * 3 + 1)
            var out = [UInt8](repeating: 0, count: 32)
            var outLength: UInt32 = 0
            _ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &out, &outLength)
            #expect(HMACSHA256Key(key: key).authenticationCode(for: message).bytes == out, "key length \(length)")
        }
    }

    @Test func aKeyStateIsReusable() {
        let key = HMACSHA256Key(key: Array("Jefe".utf8))
        let first = key.authenticationCode(for: Array("what do ya want for nothing?".utf8))
        _ = key.authenticationCode(for: Array("something else".utf8))
        #expect(key.authenticationCode(for: Array("what do ya want for nothing?".utf8)) == first)
    }
}

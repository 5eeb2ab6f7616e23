import MultiAuthCrypto
import Testing

/// AES-256-GCM against the GCM specification's own test cases (McGrew and Viega, "The
/// Galois/Counter Mode of Operation", test cases 13 and 14: a zero key and a zero 96-bit IV).
@Suite(.timeLimit(.minutes(5))) struct AESGCMTests {
    let key = [UInt8](repeating: 0, count: 32)
    let nonce = [UInt8](repeating: 0, count: 12)

    @Test func specificationTestCase13EmptyPlaintext() throws {
        let sealed = try AESGCM.seal([], key: key, nonce: nonce, associatedData: [])
        #expect(sealed.ciphertext.isEmpty)
        #expect(Hex.encode(sealed.tag) == "530f8afbc74536b9a963b4f1c4cb738b")
    }

    @Test func specificationTestCase14OneBlock() throws {
        let plaintext = [UInt8](repeating: 0, count: 16)
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: [])
        #expect(Hex.encode(sealed.ciphertext) == "cea7403d4d606b6e074ec5d3baf39d18")
        #expect(Hex.encode(sealed.tag) == "d0d1c8a799996bf0265b98b5d48ab919")
        #expect(try AESGCM.open(sealed.ciphertext, tag: sealed.tag, key: key, nonce: nonce, associatedData: []) == plaintext)
    }

    /// `prepare()` runs on another thread while the CLI parses its arguments, so it may meet a
    /// seal or an open already under way: each must still give the specification's bytes.
    @Test func prepareRacingSealsLeavesTheCipherCorrect() async throws {
        let key = key, nonce = nonce
        let tags = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index % 2 == 0 {
                        AESGCM.prepare()
                        return nil
                    }
                    return Hex.encode(try AESGCM.seal([UInt8](repeating: 0, count: 16), key: key, nonce: nonce, associatedData: []).tag)
                }
            }
            return try await group.reduce(into: [String]()) { if let tag = $1 { $0.append(tag) } }
        }
        #expect(tags == Array(repeating: "d0d1c8a799996bf0265b98b5d48ab919", count: 8))
    }
}

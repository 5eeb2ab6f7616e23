import MultiAuthCrypto
import Testing

/// SHA-256 against the FIPS 180-2 / NIST example digests.
@Suite(.timeLimit(.minutes(5))) struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func nistExamples(message: String, digest: String) {
        #expect(SHA256Hasher.hash(Array(message.utf8)).hex == digest)
    }

    @Test func millionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256Hasher.hash(message).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalEqualsOneShotAtEverySplit() {
        let message = Array("The quick brown fox jumps over the lazy dog, twice over the fence".utf8)
        let expected = SHA256Hasher.hash(message)
        for split in 0...message.count {
            var hasher = SHA256Hasher()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
    }

    @Test func finalizeLeavesTheHasherUsable() {
        var hasher = SHA256Hasher()
        hasher.update(Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(Array("c".utf8))
        #expect(hasher.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

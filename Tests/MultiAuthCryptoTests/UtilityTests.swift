import MultiAuthCrypto
import Testing

@Suite(.timeLimit(.minutes(5))) struct UtilityTests {
    @Test func hexRoundTrip() throws {
        let bytes: [UInt8] = [0x00, 0x0f, 0xa0, 0xff, 0x7e]
        #expect(Hex.encode(bytes) == "000fa0ff7e")
        #expect(try Hex.decode("000FA0ff7e") == bytes)
    }

    /// Every byte value, in whole 16-byte blocks and a 3-byte tail, against the standard
    /// library's own radix formatting.
    @Test func hexOfEveryByteMatchesRadixFormatting() {
        let bytes = (0...255).map(UInt8.init) + [0xab, 0x09, 0xf0]
        let expected = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(Hex.encode(bytes) == expected)
    }

    @Test(arguments: ["abc", "zz", "0g"])
    func hexRejectsBadText(_ text: String) {
        #expect(throws: CryptoError.invalidHex) { try Hex.decode(text) }
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test func secureRandomGivesDistinctBytesOfTheRightLength() throws {
        let first = try SecureRandom.bytes(count: 32)
        let second = try SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test func digestFromBytesChecksLength() throws {
        #expect(throws: CryptoError.invalidLength(expected: 32, actual: 3)) { try SHA256Digest(bytes: [1, 2, 3]) }
        let digest = SHA256Hasher.hash(Array("abc".utf8))
        #expect(try SHA256Digest(bytes: digest.bytes) == digest)
    }
}

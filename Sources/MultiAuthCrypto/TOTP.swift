import CLibCrypto

/// RFC 6238 time-based one-time passwords as authenticator apps and Cognito use them:
/// HMAC-SHA1 over the 30-second step count, dynamically truncated to 6 digits. The secret
/// never appears in ``description``.
package struct TOTPGenerator: Sendable, CustomStringConvertible {
    private let key: [UInt8]
    /// Digits per code.
    package let digits: Int
    /// Seconds per step.
    package let step: Int64

    /// A generator for a base32 secret (as Cognito's AssociateSoftwareToken gives it;
    /// padding, spaces and case do not matter).
    package init(base32Secret: String, digits: Int = 6, step: Int64 = 30) throws(CryptoError) {
        self.init(key: try Base32.decode(base32Secret), digits: digits, step: step)
    }

    /// A generator for raw key bytes.
    package init(key: [UInt8], digits: Int = 6, step: Int64 = 30) {
        self.key = key
        self.digits = digits
        self.step = step
    }

    /// The code for `unixTime` (seconds since 1970).
    package func code(at unixTime: Int64) -> String {
        var counter = [UInt8](repeating: 0, count: 8)
        var steps = UInt64(max(0, unixTime / step))
        for index in stride(from: 7, through: 0, by: -1) {
            counter[index] = UInt8(steps & 0xff)
            steps >>= 8
        }
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = HMAC(EVP_sha1(), key, Int32(key.count), counter, counter.count, &mac, &length)
        let offset = Int(mac[19] & 0x0f)
        let truncated = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(truncated % modulus)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Seconds left in the step that contains `unixTime`.
    package func secondsLeft(at unixTime: Int64) -> Int64 { step - unixTime % step }

    package var description: String { "TOTPGenerator(<redacted>, \(digits) digits, \(step) s)" }
}

/// RFC 4648 base32 (the alphabet A–Z, 2–7), as TOTP secrets are written.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes `text`, ignoring `=` padding, spaces and case.
    package static func decode(_ text: String) throws(CryptoError) -> [UInt8] {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 where byte != UInt8(ascii: "=") && byte != UInt8(ascii: " ") {
            let upper = (byte >= 0x61 && byte <= 0x7a) ? byte - 0x20 : byte
            guard let value = alphabet.firstIndex(of: upper) else { throw .invalidBase32 }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        return output
    }
}

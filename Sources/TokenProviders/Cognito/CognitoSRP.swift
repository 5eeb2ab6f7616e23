import CLibCrypto
import MultiAuthCrypto

/// Cognito's SRP-6a (USER_SRP_AUTH) client side: the 3072-bit RFC 5054 group with g = 2,
/// and Cognito's own padding, key derivation and claim signature.
///
/// Stages, named as AWS and pycognito name them: A = gᵃ; u = H(A ‖ B); x = H(salt ‖
/// H(poolName ‖ userId ‖ ":" ‖ password)); S = (B − k·gˣ)^(a + u·x); the password
/// authentication key = HKDF(S, salt: u, info: "Caldera Derived Key")[0..<16]; and the
/// claim signature = HMAC(key, poolName ‖ userId ‖ secretBlock ‖ timestamp).
public struct CognitoSRP: Sendable {
    /// The group's prime N (RFC 5054's 3072-bit group, the same prime as RFC 3526's).
    static let prime: BigNumber? = {
        guard let raw = BN_get_rfc3526_prime_3072(nil) else { return nil }
        defer { BN_free(raw) }
        var bytes = [UInt8](repeating: 0, count: 384)
        guard BN_bn2binpad(raw, &bytes, 384) == 384 else { return nil }
        return try? BigNumber(bytes: bytes)
    }()

    private let a: BigNumber
    /// A = gᵃ mod N, the public value sent as SRP_A.
    public let largeA: BigNumber
    private let group: Group

    struct Group {
        let n: BigNumber
        let g: BigNumber
        let k: BigNumber
    }

    /// A fresh client with a random 1024-bit secret a.
    public init() throws(TokenError) {
        let secret: [UInt8]
        do { secret = try SecureRandom.bytes(count: 128) } catch { throw .local(error.description) }
        try self.init(secret: secret)
    }

    /// A client with a given secret a (big-endian), for cross-checks against other
    /// implementations. Never use a fixed secret for a real login.
    package init(secret: [UInt8]) throws(TokenError) {
        do {
            guard let n = Self.prime else { throw CryptoError.cipherFailure }
            let g = try BigNumber(2)
            // k = H(pad(N) ‖ pad(g)), as Cognito computes it.
            let k = try BigNumber(bytes: SHA256.hash(Self.padded(n) + Self.padded(g)).bytes)
            group = Group(n: n, g: g, k: k)
            var secretCopy = secret
            defer { SecureMemory.zero(&secretCopy) }
            a = try BigNumber(bytes: secretCopy).mod(n)
            largeA = try g.power(a, modulo: n)
        } catch { throw .local("SRP set-up failed: \(error)") }
        // A ≡ 0 (mod N) would let a server learn the session key without the password.
        guard !largeA.isZero else { throw .local("SRP produced A = 0; try again") }
    }

    /// What the server sends in its PASSWORD_VERIFIER challenge.
    public struct Challenge: Sendable {
        /// SRP_B, hexadecimal.
        public var serverB: String
        /// SALT, hexadecimal.
        public var salt: String
        /// SECRET_BLOCK, base64.
        public var secretBlock: String
        /// USER_ID_FOR_SRP: the user's internal name, which differs from what was typed when
        /// the user signed in with an alias such as an email address.
        public var userIdForSRP: String

        /// The challenge's fields.
        public init(serverB: String, salt: String, secretBlock: String, userIdForSRP: String) {
            self.serverB = serverB
            self.salt = salt
            self.secretBlock = secretBlock
            self.userIdForSRP = userIdForSRP
        }
    }

    /// The intermediate values, exposed for cross-checks against pycognito.
    package struct Intermediates: Sendable {
        package let u: BigNumber
        package let x: BigNumber
        package let s: BigNumber
        package let key: [UInt8]
        package let signature: String
    }

    /// PASSWORD_CLAIM_SIGNATURE for `challenge`, signed at `timestamp` (see ``timestamp(unixTime:)``).
    /// - Parameter poolName: the part of the user pool id after `_`.
    public func claimSignature(
        challenge: Challenge, password: [UInt8], poolName: String, timestamp: String
    ) throws(TokenError) -> String {
        try intermediates(challenge: challenge, password: password, poolName: poolName, timestamp: timestamp).signature
    }

    package func intermediates(
        challenge: Challenge, password: [UInt8], poolName: String, timestamp: String
    ) throws(TokenError) -> Intermediates {
        do {
            let b = try BigNumber(hex: challenge.serverB)
            guard try !b.mod(group.n).isZero else { throw TokenError.malformedResponse(provider: "Cognito", problem: "SRP_B ≡ 0 (mod N)") }
            let u = try BigNumber(bytes: SHA256.hash(Self.padded(largeA) + Self.padded(b)).bytes)
            guard !u.isZero else { throw TokenError.malformedResponse(provider: "Cognito", problem: "SRP u = 0") }
            var identity = Array((poolName + challenge.userIdForSRP + ":").utf8) + password
            defer { SecureMemory.zero(&identity) }
            let x = try BigNumber(bytes: SHA256.hash(try Self.padded(hex: challenge.salt) + SHA256.hash(identity).bytes).bytes)
            let base = try b.subtract(group.k.multiply(group.g.power(x, modulo: group.n), modulo: group.n), modulo: group.n)
            let s = try base.power(a.adding(u.multiplying(x)), modulo: group.n)
            var key = try Self.derivedKey(s: s, u: u)
            defer { SecureMemory.zero(&key) }
            let secretBlock = try Base64.decode(challenge.secretBlock)
            let message = Array(poolName.utf8) + Array(challenge.userIdForSRP.utf8) + secretBlock + Array(timestamp.utf8)
            let signature = Base64.encode(HMACSHA256Key(key: key).authenticationCode(for: message).bytes)
            return Intermediates(u: u, x: x, s: s, key: key, signature: signature)
        } catch let error as TokenError {
            throw error
        } catch {
            throw .malformedResponse(provider: "Cognito", problem: "the PASSWORD_VERIFIER challenge is malformed (\(error))")
        }
    }

    /// HKDF-SHA256 with salt pad(u), input pad(S) and info "Caldera Derived Key", first 16 bytes.
    static func derivedKey(s: BigNumber, u: BigNumber) throws(CryptoError) -> [UInt8] {
        var input = try padded(s)
        defer { SecureMemory.zero(&input) }
        let pseudoRandomKey = HMACSHA256Key(key: try padded(u)).authenticationCode(for: input)
        let block = HMACSHA256Key(key: pseudoRandomKey).authenticationCode(for: Array("Caldera Derived Key".utf8) + [1])
        return Array(block.bytes.prefix(16))
    }

    /// Cognito's padding of a number: minimal big-endian bytes, with a leading zero byte
    /// when the top bit is set (so the value reads as positive).
    static func padded(_ number: BigNumber) throws(CryptoError) -> [UInt8] {
        let bytes = number.bytes
        guard let first = bytes.first else { return [0] }
        return first >= 0x80 ? [0] + bytes : bytes
    }

    /// The same padding applied to hex text as sent (leading zero digits are kept, as
    /// pycognito and Amplify keep them for the salt).
    static func padded(hex: String) throws(CryptoError) -> [UInt8] {
        var text = hex.count % 2 == 1 ? "0" + hex : hex
        if let first = text.first, "89abcdefABCDEF".contains(first) { text = "00" + text }
        return try Hex.decode(text)
    }

    /// The TIMESTAMP Cognito expects: `EEE MMM d HH:mm:ss UTC yyyy` in UTC, POSIX names, no
    /// leading zero on the day (`Tue Mar 5 09:04:03 UTC 2024`).
    public static func timestamp(unixTime: Int64) -> String {
        let days = unixTime >= 0 ? unixTime / 86_400 : (unixTime - 86_399) / 86_400
        let seconds = unixTime - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
        return "\(weekday) \(months[month - 1]) \(day) \(clock) UTC \(year)"
    }

    /// Howard Hinnant's days-to-civil algorithm.
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

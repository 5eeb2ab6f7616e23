package import MultiAuthCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cognito's SRP-6a (USER_SRP_AUTH) client side: the 3072-bit RFC 5054 group with g = 2,
/// and Cognito's own padding, key derivation and claim signature.
///
/// Stages, named as AWS and pycognito name them: A = gᵃ; u = H(A ‖ B); x = H(salt ‖
/// H(poolName ‖ userId ‖ ":" ‖ password)); S = (B − k·gˣ)^(a + u·x); the password
/// authentication key = HKDF(S, salt: u, info: "Caldera Derived Key")[0..<16]; and the
/// claim signature = HMAC(key, poolName ‖ userId ‖ secretBlock ‖ timestamp).
package struct CognitoSRP: Sendable {
    /// The group's prime N (RFC 5054's 3072-bit group, the same prime as RFC 3526's).
    static let prime: BigNumber? = try? BigNumber.rfc3526Prime3072()

    private let a: BigNumber
    /// A = gᵃ mod N, the public value sent as SRP_A.
    package let largeA: BigNumber
    private let group: Group

    struct Group {
        let n: BigNumber
        let g: BigNumber
        let k: BigNumber
    }

    /// A fresh client with a random 1024-bit secret a.
    package init() throws(TokenError) {
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
            let k = try BigNumber(bytes: SHA256Hasher.hash(Self.padded(n) + Self.padded(g)).bytes)
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
    package struct Challenge: Sendable {
        /// SRP_B, hexadecimal.
        package var serverB: String
        /// SALT, hexadecimal.
        package var salt: String
        /// SECRET_BLOCK, base64.
        package var secretBlock: String
        /// USER_ID_FOR_SRP: the user's internal name, which differs from what was typed when
        /// the user signed in with an alias such as an email address.
        package var userIdForSRP: String

        /// The challenge's fields.
        package init(serverB: String, salt: String, secretBlock: String, userIdForSRP: String) {
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
    package func claimSignature(
        challenge: Challenge, password: [UInt8], poolName: String, timestamp: String
    ) throws(TokenError) -> String {
        try intermediates(challenge: challenge, password: password, poolName: poolName, timestamp: timestamp).signature
    }

    package func intermediates(
        challenge: Challenge, password: [UInt8], poolName: String, timestamp: String
    ) throws(TokenError) -> Intermediates {
        try proof(challenge: challenge, identity: poolName + challenge.userIdForSRP, password: password, timestamp: timestamp)
    }

    /// DEVICE_PASSWORD_VERIFIER's PASSWORD_CLAIM_SIGNATURE: the same proof, with the device
    /// group key and device key where the pool name and user id go, and the device password.
    package func deviceClaimSignature(
        challenge: Challenge, device: CognitoRememberedDevice, timestamp: String
    ) throws(TokenError) -> String {
        try deviceIntermediates(challenge: challenge, device: device, timestamp: timestamp).signature
    }

    package func deviceIntermediates(challenge: Challenge, device: CognitoRememberedDevice, timestamp: String) throws(TokenError) -> Intermediates {
        try proof(challenge: challenge, identity: device.groupKey + device.deviceKey, password: Array(device.password.utf8), timestamp: timestamp)
    }

    /// x = H(salt ‖ H(identity ‖ ":" ‖ password)), S, the HKDF key, and the HMAC over
    /// identity ‖ secret block ‖ timestamp.
    private func proof(challenge: Challenge, identity name: String, password: [UInt8], timestamp: String) throws(TokenError) -> Intermediates {
        do {
            let b = try BigNumber(hex: challenge.serverB)
            guard try !b.mod(group.n).isZero else { throw TokenError.malformedResponse(provider: "Cognito", problem: "SRP_B ≡ 0 (mod N)") }
            let u = try BigNumber(bytes: SHA256Hasher.hash(Self.padded(largeA) + Self.padded(b)).bytes)
            guard !u.isZero else { throw TokenError.malformedResponse(provider: "Cognito", problem: "SRP u = 0") }
            var identity = Array((name + ":").utf8) + password
            defer { SecureMemory.zero(&identity) }
            let x = try BigNumber(bytes: SHA256Hasher.hash(try Self.padded(hex: challenge.salt) + SHA256Hasher.hash(identity).bytes).bytes)
            let base = try b.subtract(group.k.multiply(group.g.power(x, modulo: group.n), modulo: group.n), modulo: group.n)
            let s = try base.power(a.adding(u.multiplying(x)), modulo: group.n)
            var key = try Self.derivedKey(s: s, u: u)
            defer { SecureMemory.zero(&key) }
            let secretBlock = try Base64.decode(challenge.secretBlock)
            let message = Array(name.utf8) + secretBlock + Array(timestamp.utf8)
            let signature = Base64.encode(HMACSHA256Key(key: key).authenticationCode(for: message).bytes)
            return Intermediates(u: u, x: x, s: s, key: key, signature: signature)
        } catch let error as TokenError {
            throw error
        } catch {
            throw .malformedResponse(provider: "Cognito", problem: "the SRP challenge is malformed (\(error))")
        }
    }

    /// A device's SRP verifier for ConfirmDevice, as the Amplify and pycognito clients make it:
    /// v = gˣ with x = H(pad(salt) ‖ H(groupKey ‖ deviceKey ‖ ":" ‖ password)); both sent as
    /// base64 of their padded bytes.
    package static func deviceVerifier(groupKey: String, deviceKey: String, password: String, salt: [UInt8]) throws(TokenError) -> (verifier: String, salt: String) {
        do {
            guard let n = prime else { throw CryptoError.cipherFailure }
            let paddedSalt = try padded(BigNumber(bytes: salt))
            var identity = Array((groupKey + deviceKey + ":" + password).utf8)
            defer { SecureMemory.zero(&identity) }
            let x = try BigNumber(bytes: SHA256Hasher.hash(paddedSalt + SHA256Hasher.hash(identity).bytes).bytes)
            let v = try BigNumber(2).power(x, modulo: n)
            return (Base64.encode(try padded(v)), Base64.encode(paddedSalt))
        } catch { throw .local("the device verifier could not be made: \(error)") }
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
    package static func timestamp(unixTime: Int64) -> String {
        var seconds = time_t(unixTime)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return "\(weekdays[Int(parts.tm_wday)]) \(months[Int(parts.tm_mon)]) \(parts.tm_mday) \(clock) UTC \(Int(parts.tm_year) + 1900)"
    }
}

package import MultiAuthCrypto
import Synchronization

/// SigV4a's P-256 key, derived from the key pair as AWS specifies: NIST SP 800-108 KDF in
/// counter mode over HMAC-SHA256, keyed with `"AWS4A" + secret`, label
/// `AWS4-ECDSA-P256-SHA256`, context = access key id ‖ counter byte, 256 output bits; a
/// candidate above n − 2 moves on to the next counter, otherwise d = candidate + 1.
package enum SigV4aKeyDerivation {
    static let label = Array("AWS4-ECDSA-P256-SHA256".utf8)

    /// Derives the signing key.
    /// - Throws: ``SigningError/keyDerivationFailed`` when no counter yields a key (never
    ///   expected: each candidate fails with probability about 2^-32) or OpenSSL fails.
    package static func derive(accessKeyId: String, secret: String) throws(SigningError) -> P256SigningKey {
        var keyBytes = Array("AWS4A".utf8) + Array(secret.utf8)
        let hmac = HMACSHA256Key(key: keyBytes)
        SecureMemory.zero(&keyBytes)
        for counter in UInt8(1)...UInt8(254) {
            var input: [UInt8] = [0, 0, 0, 1] + label + [0] + Array(accessKeyId.utf8) + [counter, 0, 0, 1, 0]
            var candidate = hmac.authenticationCode(for: input).bytes
            defer { SecureMemory.zero(&candidate) }
            input.removeAll()
            do {
                if let key = try P256SigningKey.fromCandidate(candidate) { return key }
            } catch {
                throw .keyDerivationFailed
            }
        }
        throw .keyDerivationFailed
    }
}

/// A thread-safe cache of SigV4a keys keyed by (access key id, secret): deriving one costs
/// an elliptic-curve multiplication, so it is done once per key pair.
public final class SigV4aKeyCache: Sendable {
    /// A process-wide cache.
    public static let shared = SigV4aKeyCache()

    private struct Entry: Sendable {
        let accessKeyId: String
        let secret: String
        let key: P256SigningKey
    }

    private let entries = Mutex<[Entry]>([])
    private let capacity: Int

    /// Creates a cache holding at most `capacity` keys.
    public init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// The key for the pair, derived on a miss.
    package func key(accessKeyId: String, secret: String) throws(SigningError) -> P256SigningKey {
        if let hit = entries.withLock({ $0.last { $0.accessKeyId == accessKeyId && $0.secret == secret } }) {
            return hit.key
        }
        let key = try SigV4aKeyDerivation.derive(accessKeyId: accessKeyId, secret: secret)
        entries.withLock { list in
            if list.count >= capacity { list.removeFirst() }
            list.append(Entry(accessKeyId: accessKeyId, secret: secret, key: key))
        }
        return key
    }
}

package import MultiAuthCrypto
import Synchronization

/// Stage 3a: the derived signing key,
/// `HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")`.
package enum SigningKeyDerivation {
    /// Derives the signing key, returned as a ready-to-use HMAC key state.
    package static func derive(secret: String, scopeDate: String, region: String, service: String) -> HMACSHA256Key {
        derive(secretKey: secretKey(secret), scopeDate: scopeDate, region: region, service: service)
    }

    /// The first key of the chain, `"AWS4" + secret`, ready to use: fixed for a secret, so a
    /// signer prepares it once.
    static func secretKey(_ secret: String) -> HMACSHA256Key {
        var secretKey = Array("AWS4".utf8)
        secretKey.append(contentsOf: secret.utf8)
        defer { secretKey.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        return HMACSHA256Key(key: secretKey)
    }

    /// Derives the signing key from the prepared ``secretKey(_:)``.
    static func derive(secretKey dateKey: HMACSHA256Key, scopeDate: String, region: String, service: String) -> HMACSHA256Key {
        let regionKey = HMACSHA256Key(key: dateKey.authenticationCode(for: scopeDate.utf8))
        let serviceKey = HMACSHA256Key(key: regionKey.authenticationCode(for: region.utf8))
        let signingKey = serviceKey.authenticationCode(for: service.utf8)
        let requestKey = HMACSHA256Key(key: signingKey)
        return HMACSHA256Key(key: requestKey.authenticationCode(for: "aws4_request".utf8))
    }
}

/// A thread-safe cache of derived signing keys keyed by (secret, date, region, service).
///
/// A derived key is valid for one scope date, so a busy signer derives it once a day per
/// region and service instead of four HMACs per request. The cache holds at most
/// `capacity` keys and evicts the oldest. Entries hold key state, never printed.
public final class SigningKeyCache: Sendable {
    /// A process-wide cache, used by signers unless they are given another or none.
    public static let shared = SigningKeyCache()

    private struct Entry: Sendable {
        let secret: String
        let scopeDate: String
        let region: String
        let service: String
        let key: HMACSHA256Key
    }

    private let capacity: Int
    private let entries = Mutex<[Entry]>([])

    /// Creates an empty cache holding at most `capacity` keys.
    public init(capacity: Int = 32) {
        self.capacity = max(1, capacity)
    }

    /// The number of cached keys.
    public var count: Int { entries.withLock { $0.count } }

    /// Returns the signing key for the scope, deriving and caching it on a miss.
    package func key(secret: String, scopeDate: String, region: String, service: String) -> HMACSHA256Key {
        let hit = entries.withLock { list in
            list.last { $0.scopeDate == scopeDate && $0.region == region && $0.service == service && $0.secret == secret }
        }
        if let hit { return hit.key }
        let key = SigningKeyDerivation.derive(secret: secret, scopeDate: scopeDate, region: region, service: service)
        let entry = Entry(secret: secret, scopeDate: scopeDate, region: region, service: service, key: key)
        entries.withLock { list in
            if list.count >= capacity { list.removeFirst(list.count - capacity + 1) }
            list.append(entry)
        }
        return key
    }

    /// Drops every cached key.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

import MultiAuthCore
import MultiAuthCredentials
import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A session as the store keeps it (encrypted): the credentials, when they were obtained and
/// when they expire, in seconds since 1970.
struct CachedSession: Codable, Sendable {
    let accessKeyId: String
    let secretAccessKey: String
    let sessionToken: String?
    let source: String
    let obtainedAt: Double
    let expiresAt: Double

    init?(_ value: ExpiringCredentials, obtainedAt: Double) {
        guard let expiration = value.expiration else { return nil }
        accessKeyId = value.credentials.accessKeyId
        secretAccessKey = value.credentials.secretAccessKey
        sessionToken = value.credentials.sessionToken
        source = value.source
        self.obtainedAt = obtainedAt
        expiresAt = expiration.timeIntervalSince1970
    }

    /// Whether it may still be handed out at `now`: more than `margin` seconds left, and more
    /// than half of its life (a short session is not handed out nearly spent).
    func isUsable(at now: Double, margin: Double) -> Bool {
        expiresAt - now > min(margin, (expiresAt - obtainedAt) / 2)
    }

    var credentials: ExpiringCredentials {
        ExpiringCredentials(
            AWSCredentials(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken),
            expiration: Date(timeIntervalSince1970: expiresAt), source: source + " (cached)")
    }
}

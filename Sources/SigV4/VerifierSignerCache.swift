import Synchronization

/// Signers the verifier made, by credential, so a busy key id does not rebuild one per
/// request. Bounded: it starts over past 256 key ids, and keeps 4 signers per key id.
final class VerifierSignerCache: Sendable {
    struct Key: Hashable, Sendable {
        let accessKeyId: String
        let secret: String
        let token: String?
        let tokenSigned: Bool
    }

    /// A signer and what it was made for; a class so that a cache hit hands out one reference
    /// rather than a copy of the signer's fields.
    final class Entry: Sendable {
        let key: Key
        let signer: SigV4Signer

        init(key: Key, signer: SigV4Signer) {
            self.key = key
            self.signer = signer
        }

        /// See ``SigV4Signer/headerSignature(_:date:)``; called here so the signer is not copied out.
        func headerSignature(_ request: SignableRequest, date: SigningDate) throws(SigningError) -> (signature: SignatureValue, signedHeaders: String) {
            try signer.headerSignature(request, date: date)
        }

        /// See ``SigV4Signer/presignSignature(_:expires:date:)``.
        func presignSignature(_ request: SignableRequest, expires: Int, date: SigningDate) throws(SigningError) -> SignatureValue {
            try signer.presignSignature(request, expires: expires, date: date)
        }
    }

    // By key id only (cheap to hash); the rest of the key is compared on a hit.
    private let entries = Mutex<[String: [Entry]]>([:])

    /// The cached signer made for `key`, if any.
    func signer(for key: Key) -> Entry? {
        entries.withLock { $0[key.accessKeyId]?.first { $0.key == key } }
    }

    /// Caches `signer` as made for `key` and returns its entry.
    func insert(_ signer: SigV4Signer, for key: Key) -> Entry {
        let made = Entry(key: key, signer: signer)
        entries.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
            cache[key.accessKeyId, default: []].append(made)
            if let count = cache[key.accessKeyId]?.count, count > 4 { cache[key.accessKeyId]?.removeFirst() }
        }
        return made
    }
}

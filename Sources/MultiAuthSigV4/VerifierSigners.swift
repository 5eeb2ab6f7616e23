import MultiAuthCore
import MultiAuthCrypto
import Synchronization

/// The verifier's signers, and the recomputation of a received signature with them: the
/// signer's stages run over the received parts, and the result is compared with what was
/// received. Signers are cached by credential, so a busy key id does not rebuild one per
/// request. Bounded: it starts over past 256 key ids, and keeps 4 signers per key id.
///
/// A class, so that the verifier's checks share one reference rather than copying the
/// verifier's fields into every closure on the way.
final class VerifierSigners: Sendable {
    let region: String
    let service: String
    /// The service's canonicalization rules; the signers never add `x-amz-content-sha256`.
    let options: SigningOptions
    /// The derived-key cache the signers share.
    private let keyCache = SigningKeyCache()

    /// What a SigV4 signer was made for.
    struct Key: Hashable, Sendable, CustomStringConvertible {
        let accessKeyId: String
        let secret: String
        let token: String?
        let tokenSigned: Bool

        /// The key id only: the secret and token are redacted.
        var description: String { "VerifierSigners.Key(\(accessKeyId), \(Redaction.placeholder))" }
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
    }

    /// The cached signers by key id (the rest of the key is compared on a hit), and the one
    /// used last, checked first: a busy key id is found without hashing it.
    private struct Cache {
        var recent: Entry?
        var byKeyId: [String: [Entry]] = [:]
    }

    private let entries = Mutex(Cache())

    init(region: String, service: String, options: SigningOptions) {
        self.region = region
        self.service = service
        var options = options
        options.signsContentSHA256Header = false
        self.options = options
    }

    /// The signer for `key`, from the cache or made and cached.
    func signer(for key: Key) -> Entry {
        let cached = entries.withLock { cache -> Entry? in
            if let recent = cache.recent, recent.key == key { return recent }
            guard let found = cache.byKeyId[key.accessKeyId]?.first(where: { $0.key == key }) else { return nil }
            cache.recent = found
            return found
        }
        if let cached { return cached }
        var options = self.options
        options.omitsSessionToken = !key.tokenSigned
        let credentials = AWSCredentials(accessKeyId: key.accessKeyId, secretAccessKey: key.secret, sessionToken: key.token)
        let made = Entry(
            key: key, signer: SigV4Signer(credentials: credentials, region: region, service: service, options: options, keyCache: keyCache))
        entries.withLock { cache in
            if cache.byKeyId.count >= 256 { cache.byKeyId.removeAll(keepingCapacity: true) }
            cache.byKeyId[made.key.accessKeyId, default: []].append(made)
            if let count = cache.byKeyId[made.key.accessKeyId]?.count, count > 4 { cache.byKeyId[made.key.accessKeyId]?.removeFirst() }
            cache.recent = made
        }
        return made
    }
}

extension VerifierSigners {
    /// Recomputes a SigV4 signature from the received parts and compares it with the received
    /// one in constant time. `presignedTokenSigned` says, for a presigned URL with a token,
    /// which way to try. False when the received values cannot be signed at all.
    func sigV4Matches(
        _ request: RequestView<some HeaderFieldSource>, _ payload: Payload, _ parsed: ReceivedAuthorization, secret: String,
        presignedTokenSigned: Bool?
    ) -> Bool {
        let tokenSigned = presignedTokenSigned ?? parsed.signsHeader("x-amz-security-token")
        let entry = signer(for: Key(
            accessKeyId: parsed.accessKeyIdText, secret: secret, token: tokenSigned ? parsed.sessionToken : nil, tokenSigned: tokenSigned))
        // The stages' scope borrows the signer's set-up: keep the entry until they are used.
        defer { withExtendedLifetime(entry) {} }
        if let presigned = parsed.presigned {
            guard let stages = try? entry.signer.presignStages(request, payload: payload, expires: presigned.expires, date: parsed.date)
            else { return false }
            return Self.sameSignature(stages.signature, parsed)
        }
        // A signed header the request does not carry cannot be reproduced: the lists differ.
        guard let stages = try? entry.signer.headerStages(request, payload: payload, supplied: parsed.contentSHA256, date: parsed.date),
            parsed.signedHeadersEqual(stages.canonical)
        else { return false }
        return Self.sameSignature(stages.signature, parsed)
    }

    /// Rebuilds the SigV4a string to sign (the signer's stages, no signing) and checks the
    /// received DER signature over its SHA-256 with the key pair's derived public key.
    func sigV4aMatches(
        _ request: RequestView<some HeaderFieldSource>, _ payload: Payload, _ parsed: ReceivedAuthorization, secret: String,
        presignedTokenSigned: Bool
    ) -> Bool {
        let tokenSigned = parsed.presigned == nil ? parsed.signsHeader("x-amz-security-token") : presignedTokenSigned
        var options = self.options
        options.omitsSessionToken = !tokenSigned
        let accessKeyId = parsed.accessKeyIdText
        let credentials = AWSCredentials(
            accessKeyId: accessKeyId, secretAccessKey: secret, sessionToken: tokenSigned ? parsed.sessionToken : nil)
        guard let regionSet = parsed.regionSet,
            let signer = try? SigV4Signer(credentials: credentials, regionSet: regionSet, service: service, options: options),
            let key = try? SigV4aKeyCache.shared.key(accessKeyId: accessKeyId, secret: secret),
            let signature = try? Hex.decode(parsed.withBytes(of: parsed.signature) { String(decoding: $0, as: UTF8.self) })
        else { return false }
        let stages: SigningStages
        if let presigned = parsed.presigned {
            guard let found = try? signer.presignStages(request, payload: payload, expires: presigned.expires, date: parsed.date, signing: false)
            else { return false }
            stages = found
        } else {
            guard let found = try? signer.headerStages(request, payload: payload, supplied: parsed.contentSHA256, date: parsed.date, signing: false),
                parsed.signedHeadersEqual(found.canonical)
            else { return false }
            stages = found
        }
        return P256SigningKey.verify(
            signature: signature, digest: SHA256Hasher.hash(signer.stringToSign(stages)), publicX: key.publicKey.x, publicY: key.publicKey.y)
    }

    /// Compares the recomputed signature, hex-encoded on the stack, with the received hex in
    /// constant time.
    private static func sameSignature(_ expected: SignatureValue, _ parsed: ReceivedAuthorization) -> Bool {
        guard expected.hexCount == parsed.signature.count else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: expected.hexCount) { buffer in
            var writer = ByteWriter(buffer)
            expected.appendHex(to: &writer)
            return parsed.withBytes(of: parsed.signature) { received in
                ConstantTime.equals(UnsafeRawBufferPointer(writer.written), UnsafeRawBufferPointer(received))
            }
        }
    }
}

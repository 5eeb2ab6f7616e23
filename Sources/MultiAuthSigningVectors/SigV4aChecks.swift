import MultiAuthCrypto
import MultiAuthSigV4

/// SigV4a signatures are randomized ECDSA, so the suite's bytes and ours never match by
/// design. Instead: our derived public key must equal `public-key.json`, our signature
/// must verify over our string to sign, and the suite's over its own, with that key.
enum SigV4aChecks {
    static func compare(
        _ check: VectorCheck, expected: String, result: SigningResult, vector: VectorCase, publicKey: VectorCase.PublicKey
    ) -> String? {
        switch check {
        case .headerCanonicalRequest, .queryCanonicalRequest:
            return TextDiff.exact(expected: expected, actual: result.canonicalRequest)
        case .headerStringToSign, .queryStringToSign:
            return TextDiff.exact(expected: expected, actual: result.stringToSign)
        case .headerSignature, .querySignature, .headerAuthorization:
            return signatures(
                suite: expected.trimmingTrailingNewlines, check: check, result: result, vector: vector, publicKey: publicKey)
        case .headerSignedRequest, .querySignedRequest:
            let rendered = HTTPRequestText.render(result.signable)
            if let diff = SignedRequestComparison.diff(expected: expected, actual: rendered, ignoringSignature: true) {
                return diff
            }
            guard let suite = SignedRequestComparison.embeddedSignature(expected),
                let ours = SignedRequestComparison.embeddedSignature(rendered)
            else { return "no signature found in the signed request" }
            return signatures(suite: suite, ours: ours, check: check, result: result, vector: vector, publicKey: publicKey)
        }
    }

    private static func signatures(
        suite: String, ours: String? = nil, check: VectorCheck, result: SigningResult, vector: VectorCase,
        publicKey: VectorCase.PublicKey
    ) -> String? {
        guard let signer = vector.signer,
            let derived = try? SigV4aKeyCache.shared.key(
                accessKeyId: signer.credentials.accessKeyId, secret: signer.credentials.secretAccessKey)
        else { return "the SigV4a key could not be derived" }
        guard derived.publicKey.x == publicKey.x, derived.publicKey.y == publicKey.y else {
            return "derived public key (\(Hex.encode(derived.publicKey.x)), \(Hex.encode(derived.publicKey.y))) "
                + "differs from public-key.json"
        }
        let suiteStringToSign = vector.expected[check.isQuery ? .queryStringToSign : .headerStringToSign] ?? ""
        var problems: [String] = []
        if !verifies(suite, over: suiteStringToSign, publicKey) {
            problems.append("the suite's signature does not verify over its string to sign")
        }
        if !verifies(ours ?? result.signature, over: result.stringToSign, publicKey) {
            problems.append("our signature does not verify over our string to sign")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    private static func verifies(_ signatureHex: String, over stringToSign: String, _ key: VectorCase.PublicKey) -> Bool {
        guard let der = try? Hex.decode(signatureHex) else { return false }
        return P256SigningKey.verify(
            signature: der, digest: SHA256Hasher.hash(Array(stringToSign.utf8)), publicX: key.x, publicY: key.y)
    }
}

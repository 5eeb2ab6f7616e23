import MultiAuthCrypto
import MultiAuthSigV4

/// One failed check, with what was expected and what we produced.
package struct CheckFailure: Sendable {
    /// The check that failed.
    package let check: VectorCheck
    /// A readable account of the difference.
    package let diff: String
}

/// The outcome of running one case.
package struct CaseOutcome: Sendable {
    /// The case's name.
    package let name: String
    /// The checks made, in order.
    package let checks: [VectorCheck]
    /// The checks that failed.
    package let failures: [CheckFailure]
    /// Why the case was skipped, if it was.
    package let skipReason: String?

    /// True when the case ran and every check passed.
    package var passed: Bool { skipReason == nil && failures.isEmpty }
}

/// Runs cases: signs each request in header and query mode and compares every stage.
package enum VectorRunner {
    /// Runs one case.
    package static func run(_ vector: VectorCase) -> CaseOutcome {
        guard vector.skipReason == nil, let request = vector.request, let signer = vector.signer, let date = vector.date else {
            return CaseOutcome(name: vector.name, checks: [], failures: [], skipReason: vector.skipReason)
        }
        var failures: [CheckFailure] = []
        let checks = vector.expected.keys.sorted()
        let header = Result { () throws(SigningError) in try signer.signHeaders(request, date: date) }
        let query = Result { () throws(SigningError) in try signer.presign(request, expires: vector.expires, date: date) }
        for check in checks {
            guard let expected = vector.expected[check] else { continue }
            switch check.isQuery ? query : header {
            case .failure(let error):
                failures.append(CheckFailure(check: check, diff: "signing failed: \(error)"))
            case .success(let result):
                if let diff = compare(check, expected: expected, result: result, vector: vector) {
                    failures.append(CheckFailure(check: check, diff: diff))
                }
            }
        }
        return CaseOutcome(name: vector.name, checks: checks, failures: failures, skipReason: nil)
    }

    static func compare(_ check: VectorCheck, expected: String, result: SigningResult, vector: VectorCase) -> String? {
        if let publicKey = vector.publicKey {
            return SigV4aChecks.compare(check, expected: expected, result: result, vector: vector, publicKey: publicKey)
        }
        switch check {
        case .headerCanonicalRequest, .queryCanonicalRequest:
            return TextDiff.exact(expected: expected, actual: result.canonicalRequest)
        case .headerStringToSign, .queryStringToSign:
            return TextDiff.exact(expected: expected, actual: result.stringToSign)
        case .headerSignature, .querySignature:
            return TextDiff.exact(expected: expected.trimmingTrailingNewlines, actual: result.signature)
        case .headerAuthorization:
            return TextDiff.exact(expected: expected.trimmingTrailingNewlines, actual: result.authorization ?? "")
        case .headerSignedRequest, .querySignedRequest:
            let rendered = HTTPRequestText.render(result.signable)
            return SignedRequestComparison.diff(
                expected: expected, actual: rendered, ignoringSignature: vector.signatureIsStaleInSignedRequest)
        }
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var copy = self
        while copy.last == "\n" || copy.last == "\r" { copy.removeLast() }
        return copy
    }
}

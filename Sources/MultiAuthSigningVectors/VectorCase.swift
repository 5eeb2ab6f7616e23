#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MultiAuthCrypto
import MultiAuthSigV4

/// One check a vector case can make, named after the expected file it compares with.
package enum VectorCheck: String, Sendable, CaseIterable, Comparable {
    case headerCanonicalRequest = "header canonical request"
    case headerStringToSign = "header string to sign"
    case headerSignature = "header signature"
    case headerAuthorization = "Authorization header"
    case headerSignedRequest = "header signed request"
    case queryCanonicalRequest = "query canonical request"
    case queryStringToSign = "query string to sign"
    case querySignature = "query signature"
    case querySignedRequest = "query signed request"

    var isQuery: Bool { rawValue.hasPrefix("query") }

    /// Declaration order: header checks first, each in stage order.
    package static func < (lhs: VectorCheck, rhs: VectorCheck) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// The two official layouts.
package enum VectorLayout: String, Sendable {
    /// aws-c-auth: `context.json`, `request.txt`, `header-*` and `query-*` files.
    case awsCAuth = "aws-c-auth"
    /// botocore: `NAME.req/.creq/.sts/.authz/.sreq`, common parameters implied.
    case botocore
}

/// A signing test case loaded from disk, ready to run.
package struct VectorCase: Sendable {
    /// The case's path relative to the suite folder.
    package let name: String
    /// Which layout it came from.
    package let layout: VectorLayout
    /// Why the case does not apply, when it does not.
    package let skipReason: String?
    let request: SignableRequest?
    let signer: SigV4Signer?
    let date: SigningDate?
    let expires: Int
    let expected: [VectorCheck: String]
    let signatureIsStaleInSignedRequest: Bool
    /// SigV4a only: the suite's public key (`public-key.json`), against which both the
    /// suite's and our randomized signatures are verified instead of compared.
    var publicKey: PublicKey? = nil

    /// An uncompressed P-256 public key as affine coordinates.
    struct PublicKey: Sendable, Decodable {
        let x: [UInt8]
        let y: [UInt8]

        enum CodingKeys: String, CodingKey { case x = "X", y = "Y" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            x = try Hex.decode(try container.decode(String.self, forKey: .x))
            y = try Hex.decode(try container.decode(String.self, forKey: .y))
        }
    }

    static func skipped(_ name: String, _ layout: VectorLayout, reason: String) -> VectorCase {
        VectorCase(
            name: name, layout: layout, skipReason: reason, request: nil, signer: nil, date: nil,
            expires: 0, expected: [:], signatureIsStaleInSignedRequest: false)
    }
}

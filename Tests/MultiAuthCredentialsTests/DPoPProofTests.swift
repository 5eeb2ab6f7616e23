import HTTPTypes
import MultiAuthCore
@testable import MultiAuthCredentials
import MultiAuthCrypto
import Testing

/// DPoP proofs against RFC 9449 §4.2: `htm` is the request's method and `htu` its URL without
/// query and fragment.
struct DPoPProofTests {
    static func payload(_ request: HTTPRequest) throws -> JSONValue {
        let proven = try DPoPProof.attach(to: request, key: try PrivateKey.generateP256(), now: 1_700_000_000)
        let proof = try #require(proven.headerFields[HTTPField.Name("DPoP")!])
        let parts = proof.split(separator: ".")
        try #require(parts.count == 3)
        var text = parts[1].replacing("-", with: "+").replacing("_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try JSONValue.decode(String(decoding: try Base64.decode(text), as: UTF8.self))
    }

    @Test func theProofNamesTheMethodAndAQuerylessURL() throws {
        let get = try Self.payload(HTTPRequest(method: .get, scheme: "https", authority: "signin.aws.amazon.com", path: "/v1/token?code=abc&x=1"))
        #expect(get.objectValue?["htm"] == .string("GET"))
        #expect(get.objectValue?["htu"] == .string("https://signin.aws.amazon.com/v1/token"))
        let post = try Self.payload(HTTPRequest(method: .post, scheme: "https", authority: "signin.aws.amazon.com", path: "/v1/token"))
        #expect(post.objectValue?["htm"] == .string("POST") && post.objectValue?["htu"] == .string("https://signin.aws.amazon.com/v1/token"))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MultiAuthSigV4

/// Renders a signing result as the signed HTTP request or as one JSON object.
enum SignOutput {
    struct JSONForm: Encodable {
        let canonicalRequest: String
        let stringToSign: String
        let signature: String
        let signedHeaders: String
        let credentialScope: String
        let authorization: String?
        let signedUrl: String?
        let signedRequest: String
    }

    static func render(_ result: SigningResult, format: SignCommand.OutputFormat) throws -> String {
        let signedRequest = HTTPRequestText.render(result.signable)
        guard format == .json else { return signedRequest }
        let form = JSONForm(
            canonicalRequest: result.canonicalRequest, stringToSign: result.stringToSign, signature: result.signature,
            signedHeaders: result.signedHeaders, credentialScope: result.credentialScope,
            authorization: result.authorization, signedUrl: result.signedURL, signedRequest: signedRequest)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(form), as: UTF8.self)
    }
}

import MultiAuthCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

package import MultiAuthSigV4

/// aws-c-auth's `context.json`: the credentials, scope, time and flags of one signing case.
///
/// A botocore-layout suite shares one such file (credentials, region, service) for all its
/// cases, whose times come from each request's `X-Amz-Date`.
///
/// One key is ours: `double_uri_encode` (aws-c-auth's harness hard-codes `true`), so that
/// the project's derived S3 cases can be written in the same layout.
package struct SigningContext: Sendable, Decodable {
    /// `credentials` in the file.
    package struct Credentials: Sendable, Decodable {
        let accessKeyId: String
        let secretAccessKey: String
        let token: String?
    }

    let credentials: Credentials
    /// `X-Amz-Expires` for query signing.
    package let expirationInSeconds: Int?
    let normalize: Bool?
    /// The region in the scope.
    package let region: String
    /// The service in the scope.
    package let service: String
    /// Whether the body is hashed and `x-amz-content-sha256` is signed.
    package let signBody: Bool?
    let timestamp: String?
    let omitSessionToken: Bool?
    let doubleUriEncode: Bool?

    /// Reads a context file.
    /// - Throws: ``VectorError/unreadable(path:reason:)`` or ``VectorError/malformed(path:reason:)``.
    package static func load(path: String) throws(VectorError) -> SigningContext {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path: path, reason: "cannot read file")
        }
        do { return try JSONDecoding.decode(SigningContext.self, from: data, what: "the file", snakeCaseKeys: true) } catch {
            throw .malformed(path: path, reason: error.problem)
        }
    }

    /// The credentials the case signs with.
    package var awsCredentials: AWSCredentials {
        AWSCredentials(
            accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey,
            sessionToken: credentials.token)
    }

    /// The signing time, when the file gives one.
    package func signingDate() throws(SigningError) -> SigningDate? {
        try timestamp.map { (text) throws(SigningError) in try SigningDate(parsing: text) }
    }

    func requiredSigningDate() throws(SigningError) -> SigningDate {
        guard let date = try signingDate() else { throw .invalidDate("<no timestamp in context.json>") }
        return date
    }

    /// Signing options: the service's defaults, overridden by the file's flags.
    package var options: SigningOptions {
        var options = SigningOptions.defaults(forService: service)
        if let normalize { options.normalizesPath = normalize }
        if let doubleUriEncode { options.doubleEncodesPath = doubleUriEncode }
        options.signsContentSHA256Header = signBody ?? false
        options.omitsSessionToken = omitSessionToken ?? false
        return options
    }

    /// The payload as aws-c-auth signs it: the body when `sign_body`, else the empty hash.
    package func payload(body: [UInt8]) -> Payload {
        signBody == true && !body.isEmpty ? .bytes(body) : .empty
    }
}

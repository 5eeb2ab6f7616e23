import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto

/// Tokens that are presigned SigV4 URLs, as AWS's tools make them: RDS IAM database
/// authentication (`aws rds generate-db-auth-token`), EKS cluster authentication
/// (`aws eks get-token`) and short-term Amazon Bedrock API keys (`aws-bedrock-token-generator`).
/// The query is in botocore's order, so the same credentials and time give the same bytes.
public enum PresignedTokens {
    /// How long an RDS token is valid, in seconds (botocore's fixed 900).
    public static let rdsLifetime = 900
    /// How long the URL inside an EKS token is valid, in seconds (the AWS CLI's 60).
    public static let eksURLLifetime = 60
    /// How long the AWS CLI tells kubectl an EKS token lasts, in seconds (14 minutes).
    public static let eksTokenLifetime: Int64 = 14 * 60

    /// The RDS token for `username` at `hostname:port`: `HOST:PORT/?Action=connect&DBUser=…`
    /// presigned for `rds-db` in `region`, valid 900 s, without a scheme.
    /// - Throws: ``SigningError`` for a host name that is not one, or an invalid region.
    public static func rdsAuthToken(
        credentials: AWSCredentials, region: String, hostname: String, port: Int, username: String, date: SigningDate
    ) throws(SigningError) -> String {
        guard !hostname.isEmpty, hostname.utf8.allSatisfy(isHostByte) else { throw .malformedURL(hostname, reason: "not a host name") }
        guard (1...65535).contains(port) else { throw .malformedURL("\(hostname):\(port)", reason: "the port must be 1-65535") }
        let url = "https://\(hostname):\(port)/?Action=connect&DBUser=\(encoded(username))"
        let presigned = try presign(url, headers: [:], credentials: credentials, region: region, service: "rds-db", expires: rdsLifetime, date: date)
        return String(presigned.dropFirst("https://".count))
    }

    /// The EKS token for `clusterName`: `k8s-aws-v1.` and the unpadded base64url of a presigned
    /// STS `GetCallerIdentity` URL at `region`'s regional endpoint, with `x-k8s-aws-id` signed,
    /// valid 60 s.
    /// - Throws: ``SigningError`` for an invalid region or a cluster name a header cannot carry.
    public static func eksToken(credentials: AWSCredentials, region: String, clusterName: String, date: SigningDate) throws(SigningError) -> String {
        do { _ = try RegionName.validated(region, source: "the region") } catch { throw .malformedURL(region, reason: error.problem) }
        guard let header = HTTPField.Name("x-k8s-aws-id"), HTTPField.isValidValue(clusterName), !clusterName.isEmpty else {
            throw .invalidHeaderValue("x-k8s-aws-id")
        }
        let url = "https://sts.\(region).amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15"
        let presigned = try presign(
            url, headers: [header: clusterName], credentials: credentials, region: region, service: "sts", expires: eksURLLifetime, date: date)
        return "k8s-aws-v1." + Base64.encodeURL(Array(presigned.utf8))
    }

    /// The longest a short-term Bedrock API key lasts, in seconds (12 hours, the generator's).
    public static let bedrockLifetime = 43_200
    /// What every Bedrock API key starts with.
    public static let bedrockKeyPrefix = "bedrock-api-key-"

    /// A short-term Amazon Bedrock API key, as `aws-bedrock-token-generator` makes it:
    /// `bedrock-api-key-` and the base64 of a `POST bedrock.amazonaws.com/?Action=CallWithBearerToken`
    /// URL presigned for `bedrock` in `region`, valid `expires` seconds, without a scheme and
    /// with `&Version=1` after the signature.
    /// - Throws: ``SigningError`` for an invalid region, or `expires` outside 1...43200.
    public static func bedrockAPIKey(credentials: AWSCredentials, region: String, expires: Int, date: SigningDate) throws(SigningError) -> String {
        do { _ = try RegionName.validated(region, source: "the region") } catch { throw .malformedURL(region, reason: error.problem) }
        guard (1...bedrockLifetime).contains(expires) else { throw .malformedRequest("a Bedrock API key lasts 1 to \(bedrockLifetime) seconds") }
        let url = "https://bedrock.amazonaws.com/?Action=CallWithBearerToken"
        let presigned = try presign(url, method: .post, headers: [:], credentials: credentials, region: region, service: "bedrock", expires: expires, date: date)
        return bedrockKeyPrefix + Base64.encode(Array((presigned.dropFirst("https://".count) + "&Version=1").utf8))
    }

    private static func presign(
        _ url: String, method: HTTPRequest.Method = .get, headers: [HTTPField.Name: String], credentials: AWSCredentials, region: String,
        service: String, expires: Int, date: SigningDate
    ) throws(SigningError) -> String {
        var request: HTTPRequest
        do { request = try HTTPRequest(method: method, wireURL: url) } catch { throw .malformedURL(url, reason: "\(error)") }
        for (name, value) in headers { request.headerFields[name] = value }
        let signed = try SigV4Signer(credentials: credentials, region: region, service: service).presign(request, expires: expires, date: date)
        guard let target = signed.signedURL else { throw .malformedRequest("the presigned URL is missing") }
        return botocoreOrder(target)
    }

    /// The URL with its query as botocore's own signer writes it: the request's own parameters,
    /// then the signing ones in its order. The signature covers the sorted form, so any order
    /// verifies; this one gives botocore's bytes. (botocore through awscrt, when installed, puts
    /// `SignedHeaders` before `Expires`.)
    static func botocoreOrder(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        let pairs = url[url.index(after: mark)...].split(separator: "&").map(String.init)
        let order = ["Algorithm", "Credential", "Date", "Expires", "SignedHeaders", "Security-Token", "Signature"].map { "X-Amz-\($0)=" }
        let own = pairs.filter { !$0.hasPrefix("X-Amz-") }
        let signing = order.compactMap { prefix in pairs.first { $0.hasPrefix(prefix) } }
        return url[...mark] + (own + signing).joined(separator: "&")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        URIEncoding.isUnreserved(byte) && byte != UInt8(ascii: "~") && byte != UInt8(ascii: "_")
    }

    /// `text` percent-encoded as SigV4 encodes query values (``URIEncoding``).
    private static func encoded(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, 3 * bytes.count)) { storage in
                var writer = ByteWriter(storage)
                URIEncoding.write(encoding: bytes, keepSlash: false, to: &writer)
                return String(decoding: UnsafeBufferPointer(rebasing: storage[..<writer.count]), as: UTF8.self)
            }
        }
    }
}

/// How a request is signed beyond credentials, region and service.
///
/// Start from ``defaults(forService:)``: S3 differs from every other service in path
/// handling and payload headers, and the defaults encode those rules.
public struct SigningOptions: Sendable, Equatable {
    /// Remove `.`/`..` and empty path segments before encoding (off for S3).
    public var normalizesPath: Bool
    /// Percent-encode the already-encoded wire path once more (off for S3).
    public var doubleEncodesPath: Bool
    /// In header signing, add and sign `x-amz-content-sha256` (on for S3).
    public var signsContentSHA256Header: Bool
    /// Leave the session token out of the signature and add it afterwards.
    public var omitsSessionToken: Bool
    /// In query signing (presigned URLs), sign `UNSIGNED-PAYLOAD` (on for S3).
    public var presignsUnsignedPayload: Bool

    /// Creates options with every field given.
    public init(
        normalizesPath: Bool, doubleEncodesPath: Bool, signsContentSHA256Header: Bool,
        omitsSessionToken: Bool = false, presignsUnsignedPayload: Bool = false
    ) {
        self.normalizesPath = normalizesPath
        self.doubleEncodesPath = doubleEncodesPath
        self.signsContentSHA256Header = signsContentSHA256Header
        self.omitsSessionToken = omitsSessionToken
        self.presignsUnsignedPayload = presignsUnsignedPayload
    }

    /// The rules AWS applies to `service`: S3 signs the wire path as is and always carries
    /// a payload hash header; every other service normalizes and double-encodes the path.
    public static func defaults(forService service: String) -> SigningOptions {
        let s3 = isS3(service)
        return SigningOptions(
            normalizesPath: !s3, doubleEncodesPath: !s3, signsContentSHA256Header: s3,
            omitsSessionToken: false, presignsUnsignedPayload: s3)
    }

    /// S3 and its variants share S3's canonical-URI rules.
    static func isS3(_ service: String) -> Bool {
        service == "s3" || service == "s3-outposts" || service == "s3-object-lambda" || service == "s3express"
    }
}

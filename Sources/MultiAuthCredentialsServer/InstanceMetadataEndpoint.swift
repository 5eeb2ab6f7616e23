import HTTPTypes
import MultiAuthCore
import MultiAuthCrypto
import Synchronization

/// IMDSv2 as the SDKs call it: `PUT /latest/api/token` with
/// `X-aws-ec2-metadata-token-ttl-seconds` (1 to 21600) gives a token that every other
/// request must carry in `X-aws-ec2-metadata-token` until its time is up (401 without a valid
/// one: there is no IMDSv1). A token request with `X-Forwarded-For` is refused, as EC2 does,
/// so a proxy on the host cannot fetch one for a remote client.
final class InstanceMetadataEndpoint: CredentialsEndpoint {
    let roleName: String
    let region: String?
    let clock: TimeSource
    /// Tokens and when each expires; expired ones are dropped when the table is full.
    private let tokens = Mutex<[String: Double]>([:])
    /// The most tokens kept. Past it, the one closest to expiring is dropped for the new one:
    /// a client whose token was dropped gets 401 and asks for another, as SDKs do, where
    /// refusing new tokens would shut every client out for up to six hours.
    static let maxTokens = 10_000

    init(roleName: String, region: String?, clock: TimeSource) {
        self.roleName = roleName
        self.region = region
        self.clock = clock
    }

    private static let ttlField = HTTPField.Name("X-aws-ec2-metadata-token-ttl-seconds")!
    private static let tokenField = HTTPField.Name("X-aws-ec2-metadata-token")!
    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    private static let credentialsPath = "/latest/meta-data/iam/security-credentials/"

    func answer(_ request: HTTPRequest) -> EndpointAnswer {
        let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? "/"
        if path == "/latest/api/token" { return request.method == .put ? newToken(request) : .text(.methodNotAllowed, "") }
        guard request.method == .get else { return .text(.methodNotAllowed, "") }
        guard let token = request.headerFields[Self.tokenField], isLive(token) else { return .text(.unauthorized, "") }
        switch path {
        case Self.credentialsPath, String(Self.credentialsPath.dropLast()): return .text(.ok, roleName)
        case Self.credentialsPath + roleName: return .credentials(format: .instanceMetadata)
        case "/latest/meta-data/placement/region": return region.map { .text(.ok, $0) } ?? .text(.notFound, "")
        case "/latest/meta-data/placement/availability-zone": return region.map { .text(.ok, $0 + "a") } ?? .text(.notFound, "")
        default: return .text(.notFound, "")
        }
    }

    private func newToken(_ request: HTTPRequest) -> EndpointAnswer {
        guard request.headerFields[Self.forwardedFor] == nil else { return .text(.forbidden, "") }
        guard let text = request.headerFields[Self.ttlField], let ttl = Int(text), (1...21_600).contains(ttl) else {
            return .text(.badRequest, "")
        }
        guard let random = try? SecureRandom.bytes(count: 32) else { return .text(.serviceUnavailable, "") }
        let token = Base64.encodeURL(random)
        let now = clock.now()
        tokens.withLock { tokens in
            if tokens.count >= Self.maxTokens {
                tokens = tokens.filter { $0.value > now }
                if tokens.count >= Self.maxTokens, let soonest = tokens.min(by: { $0.value < $1.value }) { tokens[soonest.key] = nil }
            }
            tokens[token] = now + Double(ttl)
        }
        return .text(.ok, token, headers: [Self.ttlField: String(ttl)])
    }

    private func isLive(_ token: String) -> Bool {
        let now = clock.now()
        return tokens.withLock { tokens in (tokens[token] ?? 0) > now }
    }
}

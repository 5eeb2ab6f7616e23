public import MultiAuthCore
public import MultiAuthHTTP
import MultiAuthJSONWebTokens

extension JSONWebKeySetCache {
    /// A cache of the key set at `url`, fetched through `sender`.
    /// - Throws: the first fetch's ``TokenError`` (unreachable, or a malformed key set).
    public init(url: String, sender: any HTTPSender, maxAge: Duration = .seconds(3_600), clock: TimeSource = .system) async throws(TokenError) {
        let http = OAuthHTTP(http: sender, provider: "the key set")
        do {
            try await self.init(maxAge: maxAge, clock: clock) { () throws(TokenError) in
                try await http.getJSON(JSONWebKeySet.self, from: url, what: "the key set")
            }
        } catch let error as TokenError {
            throw error
        } catch {
            throw .local("the key set: \(error)")
        }
    }
}

extension TokenError {
    /// A refused JWT, as ``invalidToken(reason:)``.
    public init(_ invalid: InvalidTokenError) {
        self = .invalidToken(reason: invalid.reason)
    }
}

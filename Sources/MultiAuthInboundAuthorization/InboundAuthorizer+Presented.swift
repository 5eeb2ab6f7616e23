package import HTTPTypes
package import MultiAuthCore
import MultiAuthCrypto

extension InboundAuthorizer {
    /// The mode whose credential `request` carries, in the order ``authorize(_:bodySHA256:)``
    /// tries them, and who it claims to be: the access key id of a signature (from its
    /// scope), the name of a known API key, or nil (a JWT's claims are not read unverified, and
    /// an unknown API key has no name). For metrics labels and access logs, before or
    /// whatever the decision; never a secret. Nil mode: no credential of an accepted mode.
    package func presented(_ request: HTTPRequest) -> (mode: AuthMode?, principal: String?) {
        if verifier != nil, Self.isSigned(request) { return (.awsIAM, Self.signingKeyId(request)) }
        if !apiKeys.isEmpty, request.headerFields.contains(Self.apiKeyField) {
            return (.apiKey, request.headerFields.onlyValue(Self.apiKeyField).flatMap { key in apiKeys.first { ConstantTime.equals($0.key, key) }?.value })
        }
        if let tokenMode, Self.bearerToken(request) != nil { return (tokenMode, nil) }
        return (nil, nil)
    }

    /// The access key id in a signature's `Credential=` (header or query), or nil.
    static func signingKeyId(_ request: HTTPRequest) -> String? {
        let source: Substring
        if let authorization = request.headerFields[.authorization], let range = authorization.firstRange(of: "Credential=") {
            source = authorization[range.upperBound...]
        } else if let path = request.path, let range = path.firstRange(of: "X-Amz-Credential=") {
            source = path[range.upperBound...]
        } else {
            return nil
        }
        let keyId = source.prefix { $0 != "/" && $0 != "%" && $0 != "," && $0 != "&" }
        guard !keyId.isEmpty, keyId.count <= 128, keyId.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return String(keyId)
    }
}

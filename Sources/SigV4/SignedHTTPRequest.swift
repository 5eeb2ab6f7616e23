import HTTPTypes

/// Builds the signed swift-http-types request from the caller's request and the fields the
/// signer owns, without converting the caller's fields back and forth: the caller's
/// `HTTPRequest` is kept as it was, the owned fields it had are dropped, and the signed ones
/// are appended with names known to be valid.
enum SignedHTTPRequest {
    /// The fields header signing writes (lowercase); any the caller had are replaced.
    static let ownedNames: [HTTPField.Name] = [
        .authorization, .amzDate, .amzSecurityToken, .amzRegionSet, .amzContentSHA256,
    ]

    static func applying(_ signed: SignableRequest, to request: HTTPRequest) -> HTTPRequest {
        var out = request
        if !out.headerFields.isEmpty {
            for name in ownedNames where out.headerFields.contains(name) { out.headerFields[name] = nil }
        }
        for field in signed.headers {
            guard let name = owned(field.name) else { continue }
            var httpField = HTTPField(name: name, value: field.value)
            if name == .authorization || name == .amzSecurityToken { httpField.indexingStrategy = .disallow }
            out.headerFields.append(httpField)
        }
        return out
    }

    /// The owned field `name` is, compared without case and without allocating; every owned
    /// name starts with `a` or `x`, which turns most other names away at the first byte.
    private static func owned(_ name: String) -> HTTPField.Name? {
        guard let first = name.utf8.first.map(ASCII.lowercase), first == UInt8(ascii: "a") || first == UInt8(ascii: "x") else {
            return nil
        }
        for candidate in ownedNames where HTTPHeaderList.namesMatch(name, candidate.canonicalName) { return candidate }
        return nil
    }
}

extension HTTPField.Name {
    /// The SigV4 fields, shared with the authorizers in this package.
    static let amzDate = HTTPField.Name("X-Amz-Date")!
    static let amzSecurityToken = HTTPField.Name("X-Amz-Security-Token")!
    static let amzRegionSet = HTTPField.Name("X-Amz-Region-Set")!
    package static let amzContentSHA256 = HTTPField.Name("x-amz-content-sha256")!
}

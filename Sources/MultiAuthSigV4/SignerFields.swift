package import HTTPTypes

/// The header fields the signer writes for one header signature — `X-Amz-Date`, the session
/// token, SigV4a's region set, S3's `x-amz-content-sha256` and `Authorization` — and the
/// request fields they replace. One description serves the canonical headers and both
/// request forms, so what is signed and what is sent cannot drift apart. It holds only
/// which fields there are; their values come from the signer, the date and the payload hash.
struct SignerFields {
    /// The request fields dropped because the signer writes them (`Authorization` never signs).
    var replaced: CanonicalHeaders.ReplacedFields = []
    var amzDate = false
    /// The token is signed; with `trailingToken` it is sent after signing, unsigned.
    var securityToken = false
    var trailingToken = false
    var regionSet = false
    var contentSHA256 = false

    /// No fields: presigning writes its parameters in the query instead.
    static let none = SignerFields()

    /// The fields of a header signature for a signer with or without a session token and a
    /// SigV4a region set; `contentSHA256Supplied` when the request carries its own
    /// `x-amz-content-sha256`.
    init(hasToken: Bool, hasRegionSet: Bool, options: SigningOptions, contentSHA256Supplied: Bool) {
        replaced = [.amzDate]
        amzDate = true
        if hasToken {
            replaced.insert(.securityToken)
            if options.omitsSessionToken { trailingToken = true } else { securityToken = true }
        }
        if hasRegionSet {
            replaced.insert(.regionSet)
            regionSet = true
        }
        contentSHA256 = options.signsContentSHA256Header && !contentSHA256Supplied
    }

    private init() {}

    /// The values of the signed fields for one signature.
    struct Values {
        let signer: SigV4Signer
        let date: SigningDate
        let payloadHash: String
    }

    /// How many signed fields there are, and their name and value bytes: room to reserve.
    var signedCount: Int {
        (amzDate ? 1 : 0) + (securityToken ? 1 : 0) + (regionSet ? 1 : 0) + (contentSHA256 ? 1 : 0)
    }
    func signedByteCount(_ values: Values) -> Int {
        (amzDate ? 26 : 0) + (securityToken ? 20 + (values.signer.setup.sessionToken?.utf8.count ?? 0) : 0)
            + (regionSet ? 16 + (values.signer.setup.regionSet?.utf8.count ?? 0) : 0)
            + (contentSHA256 ? 20 + values.payloadHash.utf8.count : 0)
    }

    /// Adds the signed fields to the canonical headers.
    func add(to headers: inout CanonicalHeaders, _ values: Values) {
        if securityToken, let token = values.signer.setup.sessionToken { headers.add(signerField: "x-amz-security-token", value: token) }
        if amzDate { headers.add(signerField: "x-amz-date", value: values.date.amzDate) }
        if regionSet, let set = values.signer.setup.regionSet { headers.add(signerField: "x-amz-region-set", value: set) }
        if contentSHA256 { headers.add(signerField: "x-amz-content-sha256", value: values.payloadHash) }
    }

    /// The caller's request with the replaced fields dropped and the signer's appended. The
    /// token and `Authorization` are marked never to be indexed by HTTP/2 and HTTP/3 encoders.
    func applied(to request: HTTPRequest, _ values: Values, authorization: consuming HTTPField) -> HTTPRequest {
        var out = request
        if !out.headerFields.isEmpty {
            for name in replacedNames where out.headerFields.contains(name) { out.headerFields[name] = nil }
        }
        // One allocation for the copy and every appended field, rather than a copy and a growth.
        out.headerFields.reserveCapacity(out.headerFields.count + signedCount + (trailingToken ? 2 : 1))
        let token = values.signer.setup.sessionToken
        if securityToken, let token { out.headerFields.append(Self.secret(.amzSecurityToken, token)) }
        if amzDate { out.headerFields.append(HTTPField(name: .amzDate, value: values.date.amzDate)) }
        if regionSet, let set = values.signer.setup.regionSet { out.headerFields.append(HTTPField(name: .amzRegionSet, value: set)) }
        if contentSHA256 { out.headerFields.append(HTTPField(name: .amzContentSHA256, value: values.payloadHash)) }
        if trailingToken, let token { out.headerFields.append(Self.secret(.amzSecurityToken, token)) }
        authorization.indexingStrategy = .disallow
        out.headerFields.append(authorization)
        return out
    }

    /// The signer's own header list, changed the same way.
    func applied(to headers: HTTPHeaderList, _ values: Values, authorization: String) -> HTTPHeaderList {
        var out = headers
        for name in replacedNames { out.removeAll(named: name.canonicalName) }
        out.reserveCapacity(6)
        let token = values.signer.setup.sessionToken
        if securityToken, let token { out.append(name: "X-Amz-Security-Token", value: token) }
        if amzDate { out.append(name: "X-Amz-Date", value: values.date.amzDate) }
        if regionSet, let set = values.signer.setup.regionSet { out.append(name: "X-Amz-Region-Set", value: set) }
        if contentSHA256 { out.append(name: "x-amz-content-sha256", value: values.payloadHash) }
        if trailingToken, let token { out.append(name: "X-Amz-Security-Token", value: token) }
        out.append(name: "Authorization", value: authorization)
        return out
    }

    private var replacedNames: [HTTPField.Name] {
        var names: [HTTPField.Name] = [.authorization]
        if replaced.contains(.amzDate) { names.append(.amzDate) }
        if replaced.contains(.securityToken) { names.append(.amzSecurityToken) }
        if replaced.contains(.regionSet) { names.append(.amzRegionSet) }
        return names
    }

    private static func secret(_ name: HTTPField.Name, _ value: String) -> HTTPField {
        var field = HTTPField(name: name, value: value)
        field.indexingStrategy = .disallow
        return field
    }
}

extension HTTPField.Name {
    /// The SigV4 fields, shared with the authorizers in this package.
    static let amzDate = HTTPField.Name("X-Amz-Date")!
    static let amzSecurityToken = HTTPField.Name("X-Amz-Security-Token")!
    static let amzRegionSet = HTTPField.Name("X-Amz-Region-Set")!
    package static let amzContentSHA256 = HTTPField.Name("x-amz-content-sha256")!
}

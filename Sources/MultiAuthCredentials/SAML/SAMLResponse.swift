import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A role a SAML assertion lets its user assume, with the IAM identity provider that vouches
/// for the user (the `Role` attribute's pair).
public struct SAMLRole: Sendable, Hashable, Codable {
    /// The role to assume.
    public let roleArn: String
    /// The IAM SAML provider (`arn:aws:iam::ACCOUNT:saml-provider/NAME`).
    public let principalArn: String

    /// A pair.
    public init(roleArn: String, principalArn: String) {
        self.roleArn = roleArn
        self.principalArn = principalArn
    }
}

/// An identity provider's SAML response, checked as AWS would before it goes to
/// `AssumeRoleWithSAML`: well-formed, successful, signed (STS verifies the signature itself),
/// within its validity, for AWS's audience, answering the request it claims to answer, with a
/// role and provider pair and a `RoleSessionName`. Its `description` never shows the assertion.
public struct SAMLResponse: Sendable, CustomStringConvertible {
    /// The longest response STS takes (`SAMLAssertion`, base64).
    public static let maxLength = 100_000
    /// The audiences AWS accepts: its URN and the sign-in endpoints' SAML addresses.
    static func isAWSAudience(_ audience: String) -> Bool {
        audience == "urn:amazon:webservices"
            || (audience.hasPrefix("https://") && (audience.hasSuffix("signin.aws.amazon.com/saml")
                || audience.hasSuffix("signin.amazonaws.cn/saml") || audience.hasSuffix("signin.amazonaws-us-gov.com/saml")))
    }

    static let attributePrefix = "https://aws.amazon.com/SAML/Attributes/"

    /// The response as the identity provider posted it (base64): what STS takes.
    public let encoded: String
    /// The role and provider pairs the assertion offers, in its order.
    public let roles: [SAMLRole]
    /// The `SessionDuration` attribute, when the identity provider sets one.
    public let sessionDuration: Int?
    /// When the assertion stops being accepted.
    public let expiresAt: Date
    /// The assertion's `ID`, which a sign-in remembers so the same response is not used twice.
    public let assertionID: String

    /// Checks `encoded` at `now`. `requestID` is the AuthnRequest it should answer (an
    /// unsolicited response, naming none, is accepted too); `recipient`, where it was posted.
    /// With `identityProvider`, the assertion must be that provider's and carry its signature
    /// (else only STS verifies the signature).
    /// - Throws: ``CredentialsError`` `Credentials.samlResponse` saying what is wrong.
    public init(
        encoded: String, now: Date, identityProvider: SAMLIdentityProvider? = nil, requestID: String? = nil, recipient: String? = nil,
        skew: TimeInterval = 300
    ) throws(CredentialsError) {
        let compact = encoded.filter { !$0.isWhitespace }
        guard compact.utf8.count <= Self.maxLength else {
            throw .samlResponse("it is \(compact.utf8.count) characters long; STS takes at most \(Self.maxLength)")
        }
        guard let bytes = try? Base64.decode(compact), !bytes.isEmpty else { throw .samlResponse("it is not base64") }
        let root: SAMLElement
        do { root = try SAMLXML.parse(bytes) } catch { throw .samlResponse("it is not well-formed XML: \(error.problem)") }
        let checks = SAMLResponseChecks(now: now, skew: skew, requestID: requestID, recipient: recipient, identityProvider: identityProvider)
        let assertion = try checks.assertion(of: root)
        self.encoded = compact
        assertionID = assertion.attributes["ID"] ?? ""
        expiresAt = try checks.validity(of: assertion)
        let attributes = SAMLResponseChecks.attributes(of: assertion)
        roles = try SAMLResponseChecks.roles(attributes["Role"] ?? [])
        try SAMLResponseChecks.checkSessionName(attributes["RoleSessionName"])
        sessionDuration = try SAMLResponseChecks.sessionDuration(attributes["SessionDuration"])
    }

    /// The pair to assume: the one matching `roleArn` (and `principalArn`, when given), or the
    /// only one offered when neither is given.
    /// - Throws: `Credentials.samlResponse` when none matches, or several are offered and none was chosen.
    public func role(_ roleArn: String?, principalArn: String?) throws(CredentialsError) -> SAMLRole {
        let matching = roles.filter { (roleArn == nil || $0.roleArn == roleArn) && (principalArn == nil || $0.principalArn == principalArn) }
        if matching.count == 1 { return matching[0] }
        let offered = roles.map(\.roleArn).joined(separator: ", ")
        if matching.isEmpty { throw .samlResponse("it does not offer role \(roleArn ?? "") with provider \(principalArn ?? "any"); it offers: \(offered)") }
        throw .samlRoleNotChosen(offered: roles.map(\.roleArn))
    }

    public var description: String { "SAML response (assertion \(assertionID), \(roles.count) role(s))" }
}

/// The checks, one function each.
struct SAMLResponseChecks {
    static let protocolNS = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertionNS = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let signatureNS = "http://www.w3.org/2000/09/xmldsig#"

    let now: Date
    let skew: TimeInterval
    let requestID: String?
    let recipient: String?
    let identityProvider: SAMLIdentityProvider?

    /// The one assertion of a successful, signed response that answers our request.
    func assertion(of root: SAMLElement) throws(CredentialsError) -> SAMLElement {
        guard root.namespace == Self.protocolNS, root.name == "Response" else { throw .samlResponse("it is not a SAML 2.0 Response") }
        let status = root.child(Self.protocolNS, "Status")?.child(Self.protocolNS, "StatusCode")?.attributes["Value"] ?? "none"
        guard status == "urn:oasis:names:tc:SAML:2.0:status:Success" else {
            throw .samlResponse("the identity provider answered status \(status.split(separator: ":").last ?? "")")
        }
        if let destination = root.attributes["Destination"], let recipient, destination != recipient, !Self.isAWSEndpoint(destination) {
            throw .samlResponse("it is addressed to \(destination), not here")
        }
        guard root.child(Self.assertionNS, "EncryptedAssertion") == nil else { throw .samlResponse("its assertion is encrypted, which cannot be checked here") }
        let assertions = root.children(Self.assertionNS, "Assertion")
        guard assertions.count == 1, let assertion = assertions.first, let id = assertion.attributes["ID"], !id.isEmpty else {
            throw .samlResponse("it holds \(assertions.count) assertions; one is needed")
        }
        guard Self.isSigned(root) || Self.isSigned(assertion) else { throw .samlResponse("it is not signed") }
        if let identityProvider {
            let issuer = assertion.child(Self.assertionNS, "Issuer")?.text.trimmedWhitespace ?? "none"
            guard issuer == identityProvider.entityID else { throw .samlResponse("it was issued by \(issuer), not \(identityProvider.entityID)") }
            try SAMLSignature.verify(Self.isSigned(assertion) ? assertion : root, certificates: identityProvider.certificates)
        }
        try checkAnswers(root.attributes["InResponseTo"])
        return assertion
    }

    /// When the assertion expires, after checking it is current and for AWS.
    func validity(of assertion: SAMLElement) throws(CredentialsError) -> Date {
        guard let conditions = assertion.child(Self.assertionNS, "Conditions") else { throw .samlResponse("its assertion has no Conditions") }
        let audiences = conditions.children(Self.assertionNS, "AudienceRestriction").flatMap { $0.children(Self.assertionNS, "Audience") }.map(\.text)
        guard audiences.contains(where: { SAMLResponse.isAWSAudience($0.trimmedWhitespace) }) else {
            throw .samlResponse("it is for another audience (\(audiences.first ?? "none"), not urn:amazon:webservices)")
        }
        if let notBefore = try Self.instant(conditions.attributes["NotBefore"]), notBefore > now.addingTimeInterval(skew) {
            throw .samlResponse("it is not valid before \(conditions.attributes["NotBefore"] ?? "")")
        }
        let confirmations = assertion.child(Self.assertionNS, "Subject")?.children(Self.assertionNS, "SubjectConfirmation")
            .filter { $0.attributes["Method"] == "urn:oasis:names:tc:SAML:2.0:cm:bearer" } ?? []
        guard let data = confirmations.first?.child(Self.assertionNS, "SubjectConfirmationData"),
            let confirmationEnd = try Self.instant(data.attributes["NotOnOrAfter"])
        else { throw .samlResponse("its assertion has no bearer SubjectConfirmationData with NotOnOrAfter") }
        if let recipient, let named = data.attributes["Recipient"], named != recipient, !Self.isAWSEndpoint(named) {
            throw .samlResponse("its assertion is for recipient \(named), not here")
        }
        try checkAnswers(data.attributes["InResponseTo"])
        let end = min(confirmationEnd, try Self.instant(conditions.attributes["NotOnOrAfter"]) ?? confirmationEnd)
        guard end.addingTimeInterval(skew) > now else { throw .samlResponse("it expired at \(Self.text(end))") }
        return end
    }

    private func checkAnswers(_ inResponseTo: String?) throws(CredentialsError) {
        guard let requestID, let inResponseTo, inResponseTo != requestID else { return }
        throw .samlResponse("it answers another sign-in (InResponseTo does not match)")
    }

    /// The assertion's attributes by the part of their name after AWS's prefix.
    static func attributes(of assertion: SAMLElement) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for statement in assertion.children(assertionNS, "AttributeStatement") {
            for attribute in statement.children(assertionNS, "Attribute") {
                guard let name = attribute.attributes["Name"], name.hasPrefix(SAMLResponse.attributePrefix) else { continue }
                found[String(name.dropFirst(SAMLResponse.attributePrefix.count)), default: []] +=
                    attribute.children(assertionNS, "AttributeValue").map { $0.text.trimmedWhitespace }
            }
        }
        return found
    }

    /// `role,provider` pairs, in either order as AWS accepts them.
    static func roles(_ values: [String]) throws(CredentialsError) -> [SAMLRole] {
        let roles = values.compactMap { value -> SAMLRole? in
            let parts = value.split(separator: ",").map { $0.trimmedWhitespace }
            guard parts.count == 2 else { return nil }
            let role = parts.first { $0.hasPrefix("arn:") && $0.contains(":role/") }
            let provider = parts.first { $0.hasPrefix("arn:") && $0.contains(":saml-provider/") }
            guard let role, let provider else { return nil }
            return SAMLRole(roleArn: role, principalArn: provider)
        }
        guard !roles.isEmpty else { throw .samlResponse("it offers no role (attribute \(SAMLResponse.attributePrefix)Role)") }
        return roles
    }

    static func checkSessionName(_ values: [String]?) throws(CredentialsError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+=,.@-_")
        guard let name = values?.first, (2...64).contains(name.count), name.allSatisfy(allowed.contains) else {
            throw .samlResponse("it has no usable \(SAMLResponse.attributePrefix)RoleSessionName (2 to 64 of letters, digits and +=,.@-_)")
        }
    }

    static func sessionDuration(_ values: [String]?) throws(CredentialsError) -> Int? {
        guard let text = values?.first else { return nil }
        guard let seconds = Int(text), (900...43_200).contains(seconds) else {
            throw .samlResponse("its SessionDuration \(text.prefix(20)) is not 900 to 43200 seconds")
        }
        return seconds
    }

    /// Signed by an enveloped signature whose reference is the element itself.
    static func isSigned(_ element: SAMLElement) -> Bool {
        guard let id = element.attributes["ID"], let signature = element.child(signatureNS, "Signature") else { return false }
        let references = signature.child(signatureNS, "SignedInfo")?.children(signatureNS, "Reference") ?? []
        return references.contains { $0.attributes["URI"] == "#" + id }
            && signature.child(signatureNS, "SignatureValue").map { !$0.text.trimmedWhitespace.isEmpty } == true
    }

    static func isAWSEndpoint(_ url: String) -> Bool { SAMLResponse.isAWSAudience(url) }

    static func instant(_ text: String?) throws(CredentialsError) -> Date? {
        guard let text else { return nil }
        guard let date = ISO8601.parse(text) else { throw .samlResponse("the instant \(text.prefix(40)) is not an xs:dateTime") }
        return date
    }

    static func text(_ date: Date) -> String { date.formatted(.iso8601) }
}

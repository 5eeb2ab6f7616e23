import HTTPTypes
import MultiAuthAWSClient
import MultiAuthCore
public import MultiAuthHTTP
public import MultiAuthSigV4

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// IAM Roles Anywhere: credentials for a host outside AWS from its X.509 certificate, by
/// `CreateSession` (`POST /sessions`) signed with the certificate's key (`X509Signer`).
///
/// Every call asks for a new session unless a `sessionCache` keeps them: with the
/// store's ``SessionCache``, processes on the host share one session and obtain a new one once
/// (CreateSession is rate-limited). Wrap the provider in ``CachingCredentialsProvider`` to
/// keep the session within a process too.
public struct RolesAnywhereCredentialsProvider: CredentialsProvider {
    /// What a session is asked for with, as `aws_signing_helper` takes it.
    public struct Settings: Sendable, Hashable {
        /// `arn:aws:rolesanywhere:REGION:ACCOUNT:trust-anchor/ID`.
        public var trustAnchorArn: String
        /// `arn:aws:rolesanywhere:REGION:ACCOUNT:profile/ID`.
        public var profileArn: String
        /// The IAM role the session is for.
        public var roleArn: String
        /// The region called (nil: the trust anchor's).
        public var region: String?
        /// The service's URL (nil: `AWS_ENDPOINT_URL_ROLESANYWHERE`, then the regional endpoint).
        public var endpoint: String?
        /// The session's length in seconds, 900…43200.
        public var sessionDuration: Int
        /// The session's name, when the profile accepts one.
        public var roleSessionName: String?

        /// Settings for one role through one trust anchor and profile.
        public init(
            trustAnchorArn: String, profileArn: String, roleArn: String, region: String? = nil, endpoint: String? = nil,
            sessionDuration: Int = 3600, roleSessionName: String? = nil
        ) {
            self.trustAnchorArn = trustAnchorArn
            self.profileArn = profileArn
            self.roleArn = roleArn
            self.region = region
            self.endpoint = endpoint
            self.sessionDuration = sessionDuration
            self.roleSessionName = roleSessionName
        }
    }

    /// The identity, or how to get it when a session must be obtained.
    enum Identity {
        case ready(X509SigningIdentity)
        case deferred(id: String, load: @Sendable () async throws(X509IdentityError) -> X509SigningIdentity)
    }

    let settings: Settings
    let identity: Identity
    /// The region called: the settings', else the trust anchor's.
    public let region: String
    let client: AWSClient
    let sessionCache: (any SessionCache)?

    /// A provider signing with `identity`, calling through `http`.
    /// - Throws: ``CredentialsError/invalidSetting(source:problem:)`` for a malformed ARN, a
    ///   duration outside 900…43200 s, or no region.
    public init(
        identity: X509SigningIdentity, settings: Settings, environment: [String: String]? = nil, http: any HTTPSender,
        sessionCache: (any SessionCache)? = nil
    ) throws(CredentialsError) {
        try self.init(.ready(identity), settings: settings, environment: environment, http: http, sessionCache: sessionCache)
    }

    /// A provider that gets its identity from `load` only when a session must be obtained: a
    /// key in a token (PKCS#11) is then not opened while the cached session lasts. The
    /// cached session is kept for `certificateID`, which names the certificate (its file's
    /// digest, or its token URI).
    public init(
        certificateID: String, loadingIdentity load: @escaping @Sendable () async throws(X509IdentityError) -> X509SigningIdentity, settings: Settings,
        environment: [String: String]? = nil, http: any HTTPSender, sessionCache: (any SessionCache)? = nil
    ) throws(CredentialsError) {
        try self.init(.deferred(id: certificateID, load: load), settings: settings, environment: environment, http: http, sessionCache: sessionCache)
    }

    private init(
        _ identity: Identity, settings: Settings, environment: [String: String]?, http: any HTTPSender, sessionCache: (any SessionCache)?
    ) throws(CredentialsError) {
        try Self.check(settings)
        guard let region = settings.region ?? Self.region(ofArn: settings.trustAnchorArn) else {
            throw .invalidSetting(source: Self.source, problem: "no region: give one, or a trust anchor ARN that names one")
        }
        self.settings = settings
        self.identity = identity
        self.region = region
        client = try .forChain(
            service: "rolesanywhere", region: region, endpoint: settings.endpoint.map { ServiceEndpoint(url: Self.url($0)) },
            environment: environment ?? ProcessInfo.processInfo.environment, http: http)
        self.sessionCache = sessionCache
    }

    static let source = "IAM Roles Anywhere"

    public func credentials() async throws(CredentialsError) -> ExpiringCredentials {
        guard let sessionCache else { return try await createSession() }
        return try await sessionCache.session(for: sessionKey) { () async throws(CredentialsError) in try await createSession() }
    }

    /// The store's account for these sessions, and the settings a cached one must match (the
    /// certificate's serial among them: a renewed certificate gets a new session).
    var sessionKey: SessionKey {
        var fields = [
            "trust_anchor_arn": settings.trustAnchorArn, "profile_arn": settings.profileArn, "role_arn": settings.roleArn,
            "region": region, "duration_seconds": String(settings.sessionDuration), "certificate": certificateID,
            "endpoint": client.endpoint.url,
        ]
        fields["role_session_name"] = settings.roleSessionName
        return SessionKey(profile: "rolesanywhere:\(settings.roleArn)", settings: fields)
    }

    private var certificateID: String {
        switch identity {
        case .ready(let identity): "serial \(identity.serialNumber)"
        case .deferred(let id, _): id
        }
    }

    /// The signer, its identity loaded (and a key kept elsewhere checked against the
    /// certificate) when it was deferred.
    private func signer() async throws(CredentialsError) -> X509Signer {
        switch identity {
        case .ready(let identity): return X509Signer(identity: identity, region: region)
        case .deferred(_, let load):
            do {
                let identity = try await load()
                try await identity.checkKey()
                return X509Signer(identity: identity, region: region)
            } catch { throw .certificate(error) }
        }
    }

    private func createSession() async throws(CredentialsError) -> ExpiringCredentials {
        var body: [String: JSONValue] = [
            "durationSeconds": .number(Double(settings.sessionDuration)), "profileArn": .string(settings.profileArn),
            "roleArn": .string(settings.roleArn), "trustAnchorArn": .string(settings.trustAnchorArn),
        ]
        if let name = settings.roleSessionName { body["roleSessionName"] = .string(name) }
        let operation = AWSOperation.restJSON("CreateSession", method: .post, path: "/sessions", body: Array(JSONValue.object(body).description.utf8))
        let signer = try await signer()
        let answer: CreateSessionAnswer
        do {
            let response = try await client.send(operation) { request, body, date throws(SigningError) in
                try await signer.signHeaders(request, payload: .bytes(body), date: date)
            }
            answer = try JSONDecoding.decode(CreateSessionAnswer.self, from: response.body, what: "the CreateSession answer")
        } catch let error as AWSCallError {
            throw CredentialsError(error)
        } catch {
            throw .serviceError(service: "rolesanywhere CreateSession", code: "MalformedResponse", message: "\(error)")
        }
        guard let keys = answer.credentialSet.first?.credentials else {
            throw .serviceError(service: "rolesanywhere CreateSession", code: "MalformedResponse", message: "no credentials in the answer")
        }
        let credentials = AWSCredentials(accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey, sessionToken: keys.sessionToken)
        try checkWireSafe([("accessKeyId", keys.accessKeyId), ("sessionToken", keys.sessionToken)], source: Self.source)
        return ExpiringCredentials(credentials, expiration: ISO8601.parse(keys.expiration), source: Self.source)
    }

    private struct CreateSessionAnswer: Decodable {
        struct Entry: Decodable { let credentials: Keys }
        struct Keys: Decodable {
            let accessKeyId: String, secretAccessKey: String, sessionToken: String, expiration: String
        }
        let credentialSet: [Entry]
    }

    private static func check(_ settings: Settings) throws(CredentialsError) {
        let shapes = [
            ("trust anchor ARN", settings.trustAnchorArn, "rolesanywhere", "trust-anchor/"), ("profile ARN", settings.profileArn, "rolesanywhere", "profile/"),
            ("role ARN", settings.roleArn, "iam", "role/"),
        ]
        for (what, arn, service, resource) in shapes {
            let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count == 6, parts[0] == "arn", parts[2] == service, parts[5].hasPrefix(resource), parts[5].count > resource.count, WireText.isSafe(arn) else {
                throw .invalidSetting(source: Self.source, problem: "the \(what) '\(Redaction.quoted(arn))' is not arn:PARTITION:\(service):…:\(resource)ID")
            }
        }
        guard (900...43_200).contains(settings.sessionDuration) else {
            throw .invalidSetting(source: Self.source, problem: "the session duration \(settings.sessionDuration) s is outside 900…43200 s")
        }
        if let name = settings.roleSessionName, name.isEmpty || !WireText.isSafe(name) {
            throw .invalidSetting(source: Self.source, problem: "the role session name is empty or holds a control character")
        }
    }

    /// The region an ARN names (its fourth part), if any.
    static func region(ofArn arn: String) -> String? {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        return parts.count == 6 && !parts[3].isEmpty ? String(parts[3]) : nil
    }

    /// `--endpoint` as `aws_signing_helper` takes it: a URL, or a host that means HTTPS.
    static func url(_ endpoint: String) -> String { endpoint.contains("://") ? endpoint : "https://\(endpoint)" }
}

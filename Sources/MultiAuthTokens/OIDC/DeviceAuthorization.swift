import MultiAuthCore

/// RFC 8628's device authorization grant: the user approves on another device while this
/// client polls.
public struct DeviceAuthorization: Sendable, Decodable {
    /// The code the client polls with (secret; never displayed).
    let deviceCode: String
    /// The code the user types at ``verificationURI``.
    public let userCode: String
    /// Where the user goes.
    public let verificationURI: String
    /// The same with the code filled in, when the provider offers it.
    public let verificationURIComplete: String?
    /// Seconds until the codes expire.
    public let expiresIn: Int64
    /// Seconds between polls (default 5).
    public let interval: Int64?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in", interval
    }
}

extension OpenIDConnectClient {
    /// Starts a device authorization: show ``DeviceAuthorization/userCode`` and
    /// ``DeviceAuthorization/verificationURI`` to the user, then call ``pollDeviceToken(_:)``.
    public func startDeviceAuthorization() async throws(TokenError) -> DeviceAuthorization {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw .invalidParameter(provider: configuration.issuer, message: "the provider has no device authorization endpoint")
        }
        let result = try await oauth.postForm(
            DeviceAuthorization.self, to: endpoint, form: [("scope", configuration.scope)], client: clientAuthentication, secrets: [])
        switch result {
        case .success(let authorization): return authorization
        case .failure(let failure): throw mapped(failure)
        }
    }

    /// Polls the token endpoint every `interval` seconds until the user approves; backs off
    /// by 5 s on `slow_down`, and stops on `expired_token`, `access_denied` or the expiry.
    public func pollDeviceToken(_ authorization: DeviceAuthorization) async throws(TokenError) -> AuthTokens {
        var interval = max(1, authorization.interval ?? 5)
        let deadline = Int64(clock.now()) + authorization.expiresIn
        let form = [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", authorization.deviceCode)]
        while Int64(clock.now()) < deadline {
            do { try await Task.sleep(for: .seconds(interval)) } catch { throw .timedOut(what: "the device approval (cancelled)", seconds: 0) }
            do {
                return try await tokenRequest(form, nonce: nil, secrets: [authorization.deviceCode])
            } catch {
                guard case .service(_, let code, _) = error.kind, ["authorization_pending", "slow_down"].contains(code) else { throw error }
                if code == "slow_down" { interval += 5 }
            }
        }
        throw .deviceCodeExpired
    }
}

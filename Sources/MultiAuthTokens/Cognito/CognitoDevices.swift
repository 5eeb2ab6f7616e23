public import MultiAuthCore
import MultiAuthCrypto

/// A device Cognito remembers for a user: its key, its group key and the random password
/// whose SRP verifier the pool holds. ``description`` never shows the password.
public struct CognitoRememberedDevice: Sendable, Codable, Equatable, RedactedDescribing {
    /// DeviceKey (`REGION_UUID`).
    public let deviceKey: String
    /// DeviceGroupKey.
    public let groupKey: String
    /// The device password (secret).
    public let password: String

    /// A device.
    public init(deviceKey: String, groupKey: String, password: String) {
        self.deviceKey = deviceKey
        self.groupKey = groupKey
        self.password = password
    }

    public var description: String { "device \(deviceKey) (password \(Redaction.placeholder))" }
}

/// A device the pool offered to track (`NewDeviceMetadata`), not yet confirmed.
public struct CognitoNewDevice: Sendable, Equatable {
    /// DeviceKey.
    public let deviceKey: String
    /// DeviceGroupKey.
    public let groupKey: String
}

/// Where remembered devices live, keyed by the pool's user id (USER_ID_FOR_SRP, the access
/// token's `username`), never by the alias typed at sign-in.
public protocol CognitoDeviceStore: Sendable {
    /// The device remembered for `userId`, if any.
    func device(for userId: String) async throws(TokenError) -> CognitoRememberedDevice?
    /// Keeps `device` for `userId`.
    func save(_ device: CognitoRememberedDevice, for userId: String) async throws(TokenError)
    /// Forgets the device of `userId`.
    func remove(for userId: String) async throws(TokenError)
}

/// What a sign-in gave: the tokens, the pool's name for the user, and the device the pool
/// offers to track (remember it with ``CognitoUserPoolAuthenticator/rememberDevice(_:tokens:userId:name:devices:)``).
public struct CognitoSignIn: Sendable {
    /// The tokens.
    public let tokens: AuthTokens
    /// The pool's user id (what devices are kept under).
    public let userId: String
    /// Set when the pool offers to track this device.
    public let newDevice: CognitoNewDevice?
}

extension CognitoUserPoolAuthenticator {
    /// Confirms `device` (ConfirmDevice with a verifier made from a random device password),
    /// marks it remembered when the pool asks the user to opt in (UpdateDeviceStatus), and
    /// keeps it in `devices` under the user's pool id.
    public func rememberDevice(
        _ device: CognitoNewDevice, tokens: AuthTokens, userId: String, name: String, devices: any CognitoDeviceStore
    ) async throws(TokenError) -> CognitoRememberedDevice {
        let password: String
        let salt: [UInt8]
        do {
            password = Base64.encode(try SecureRandom.bytes(count: 40))
            salt = try SecureRandom.bytes(count: 16)
        } catch { throw .local(error.description) }
        let verifier = try CognitoSRP.deviceVerifier(groupKey: device.groupKey, deviceKey: device.deviceKey, password: password, salt: salt)
        let confirmation = try await api.confirmDevice(
            accessToken: tokens.accessToken, deviceKey: device.deviceKey, verifier: verifier.verifier, salt: verifier.salt, name: name)
        if confirmation.UserConfirmationNecessary == true {
            try await api.updateDeviceStatus(accessToken: tokens.accessToken, deviceKey: device.deviceKey, remembered: true)
        }
        let remembered = CognitoRememberedDevice(deviceKey: device.deviceKey, groupKey: device.groupKey, password: password)
        try await devices.save(remembered, for: userId)
        return remembered
    }

    /// ForgetDevice for the device the access token names (its `device_key` claim), and
    /// removes it from `devices`. Returns the device key, or nil when the tokens name none.
    public func forgetDevice(tokens: AuthTokens, devices: any CognitoDeviceStore) async throws(TokenError) -> String? {
        let claims = try? tokens.claims(of: .access)
        guard let deviceKey = claims?.members["device_key"]?.stringValue else { return nil }
        try await api.forgetDevice(accessToken: tokens.accessToken, deviceKey: deviceKey)
        if let userId = claims?.members["username"]?.stringValue { try await devices.remove(for: userId) }
        return deviceKey
    }
}

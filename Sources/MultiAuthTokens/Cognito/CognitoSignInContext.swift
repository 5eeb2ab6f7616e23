import MultiAuthCrypto

/// USER_AUTH's first factors (PREFERRED_CHALLENGE, and the answers to SELECT_CHALLENGE).
public enum CognitoFirstFactor: String, Sendable, Codable, CaseIterable {
    /// The password, sent over TLS.
    case password = "PASSWORD"
    /// The password proven by SRP.
    case passwordSRP = "PASSWORD_SRP"
    /// A code sent by email.
    case emailOTP = "EMAIL_OTP"
    /// A code sent by text message.
    case smsOTP = "SMS_OTP"
    /// A passkey (WebAuthn): the pool sends request options, the authenticator signs them.
    case webAuthn = "WEB_AUTHN"
}

/// A custom challenge (CUSTOM_CHALLENGE) and the parameters the pool's trigger sent with it.
public struct CognitoCustomChallenge: Sendable, Equatable {
    /// The challenge parameters, as the pool's Lambda trigger defined them.
    public let parameters: [String: String]
}

/// What one sign-in carries between its rounds: the password (zeroed at the end), the SRP
/// client once one is started, the preferred first factor, and the remembered device.
struct CognitoSignInContext {
    var password: [UInt8]
    let preferred: CognitoFirstFactor?
    let devices: (any CognitoDeviceStore)?
    var srp: CognitoSRP?
    var device: CognitoRememberedDevice?

    init(password: [UInt8], preferred: CognitoFirstFactor?, devices: (any CognitoDeviceStore)?) {
        self.password = password
        self.preferred = preferred
        self.devices = devices
    }

    /// A fresh SRP client; its A, in hexadecimal.
    mutating func startSRP() throws(TokenError) -> String {
        let fresh = try CognitoSRP()
        srp = fresh
        return fresh.largeA.hex
    }

    /// What goes with a first factor: the password, or SRP_A; nothing for a code or a passkey.
    mutating func firstFactorProof(_ factor: CognitoFirstFactor) throws(TokenError) -> [String: String] {
        switch factor {
        case .password: ["PASSWORD": String(decoding: password, as: UTF8.self)]
        case .passwordSRP: ["SRP_A": try startSRP()]
        case .emailOTP, .smsOTP, .webAuthn: [:]
        }
    }
}

public import MultiAuthCore
import MultiAuthCrypto

/// Why an X.509 signing identity could not be made or used. Messages name the part and the
/// problem; never key material or a passphrase.
public struct X509IdentityError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on.
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { nil }
    public var description: String { message }
}

extension X509IdentityError {
    /// A certificate part (named by `what`) holds no well-formed PEM certificate.
    public static func malformedCertificate(_ what: String) -> X509IdentityError { .init(.malformedCertificate(what)) }
    /// A key part holds no RSA or EC private key.
    public static func malformedKey(_ what: String) -> X509IdentityError { .init(.malformedKey(what)) }
    /// The key is encrypted and no passphrase was given.
    public static func passphraseRequired(_ what: String) -> X509IdentityError { .init(.passphraseRequired(what)) }
    /// The passphrase does not open the key.
    public static func wrongPassphrase(_ what: String) -> X509IdentityError { .init(.wrongPassphrase(what)) }
    /// The private key is not the certificate's.
    public static var keyMismatch: X509IdentityError { .init(.keyMismatch) }
    /// The certificate's validity starts after the signing time.
    public static func notYetValid(serial: String, notBefore: Int64) -> X509IdentityError { .init(.notYetValid(serial: serial, notBefore: notBefore)) }
    /// The certificate's validity ended before the signing time.
    public static func expired(serial: String, notAfter: Int64) -> X509IdentityError { .init(.expired(serial: serial, notAfter: notAfter)) }
    /// A PKCS#11 module, token, PIN or object failed: `problem` names which and the token's
    /// return code.
    public static func pkcs11(_ problem: String) -> X509IdentityError { .init(.pkcs11(problem)) }
    /// A key in a TPM (TSS2 PEM) could not be used: no `tpm2` provider, or no TPM answered.
    public static func tpm(_ problem: String) -> X509IdentityError { .init(.tpm(problem)) }
    /// The certificate or key could not be loaded: `reason` says which file and why.
    public static func loadFailed(_ reason: String) -> X509IdentityError { .init(.loadFailed(reason)) }
    /// The key (or the token holding it) could not sign.
    public static func signingFailed(reason: String) -> X509IdentityError { .init(.signingFailed(reason: reason)) }

    init(key error: CryptoError, what: String) {
        switch error {
        case .passphraseRequired: self = .passphraseRequired(what)
        case .wrongPassphrase: self = .wrongPassphrase(what)
        case .tpmUnavailable(let reason): self = .init(.tpm(reason))
        default: self = .malformedKey(what)
        }
    }

    /// Each failure with its details; callers switch on ``X509IdentityError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case malformedCertificate(String)
        case malformedKey(String)
        case passphraseRequired(String)
        case wrongPassphrase(String)
        case keyMismatch
        case notYetValid(serial: String, notBefore: Int64)
        case expired(serial: String, notAfter: Int64)
        case signingFailed(reason: String)
        case pkcs11(String)
        case tpm(String)
        case loadFailed(String)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .malformedCertificate(let what): "\(what) is not a PEM X.509 certificate"
            case .malformedKey(let what): "\(what) holds no RSA or EC private key (PEM PKCS#1, SEC1, PKCS#8 or PKCS#12)"
            case .passphraseRequired(let what): "\(what) is encrypted: give its passphrase"
            case .wrongPassphrase(let what): "the passphrase does not open \(what)"
            case .keyMismatch: "the private key is not the certificate's"
            case .notYetValid(let serial, let notBefore): "the certificate (serial \(serial)) is not valid before \(ISOTime.text(Double(notBefore)))"
            case .expired(let serial, let notAfter): "the certificate (serial \(serial)) expired at \(ISOTime.text(Double(notAfter)))"
            case .signingFailed(let reason): "the private key could not sign: \(reason)"
            case .pkcs11(let problem): "PKCS#11: \(problem)"
            case .tpm(let problem): "TPM: \(problem)"
            case .loadFailed(let reason): reason
            }
        }

        /// `X509Identity.` and the case's name.
        package var code: ErrorCode {
            switch self {
            case .malformedCertificate: "X509Identity.malformedCertificate"
            case .malformedKey: "X509Identity.malformedKey"
            case .passphraseRequired: "X509Identity.passphraseRequired"
            case .wrongPassphrase: "X509Identity.wrongPassphrase"
            case .keyMismatch: "X509Identity.keyMismatch"
            case .notYetValid: "X509Identity.notYetValid"
            case .expired: "X509Identity.expired"
            case .signingFailed: "X509Identity.signingFailed"
            case .pkcs11: "X509Identity.pkcs11"
            case .tpm: "X509Identity.tpm"
            case .loadFailed: "X509Identity.loadFailed"
            }
        }
    }
}

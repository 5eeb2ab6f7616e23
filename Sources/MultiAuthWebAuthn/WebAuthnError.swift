/// Why a passkey could not be made or used. Its message names what failed and never holds a
/// key, a signature or client data.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, for callers to switch on.
    public enum Code: String, Sendable {
        /// libfido2 could not be loaded.
        case libraryMissing
        /// No authenticator is connected (or the one named is not there).
        case authenticatorAbsent
        /// The authenticator refused or failed the operation (a timeout, no matching passkey, a PIN needed).
        case authenticatorFailed
        /// The relying party the options name is not one the origin may use.
        case relyingPartyMismatch
        /// The options cannot be used: malformed, or asking for what this client cannot do.
        case invalidOptions
        /// The authenticator answered with data a browser would refuse.
        case malformedAuthenticatorData
    }

    /// What failed.
    public let code: Code
    /// The sentence shown to people.
    public let message: String
    /// libfido2's status code, when it gave one.
    public let status: Int32?

    package init(_ code: Code, _ message: String, status: Int32? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

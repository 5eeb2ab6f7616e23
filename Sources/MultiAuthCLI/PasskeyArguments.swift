import ArgumentParser
import MultiAuthWebAuthn

/// Where passkeys are made and used (`--authenticator`), and the origin the client data names.
struct PasskeyArguments: ParsableArguments {
    @Option(help: """
        The FIDO2 authenticator for passkeys: a hidraw device (/dev/hidraw3), or unix:PATH for a software authenticator \
        serving CTAP on a UNIX socket (default: the first security key libfido2 finds).
        """)
    var authenticator: String?
    @Option(help: """
        The origin passkey client data names, as a web page's would (default: https:// and the relying party the pool names, \
        as an app with that associated domain). The pool's relying party must be its host or a domain above it.
        """)
    var passkeyOrigin: String?
    @Option(help: "How long to wait for the security key's touch, in seconds (1 to 600).") var touchTimeout: Int32 = 30

    /// A client whose origin is `--passkey-origin`, else `https://` and the relying party the options name.
    func client() -> WebAuthnClient {
        WebAuthnClient(
            origin: passkeyOrigin,
            authenticator: FIDO2Authenticator(device: authenticator, timeoutMilliseconds: min(max(1, touchTimeout), 600) * 1000))
    }
}

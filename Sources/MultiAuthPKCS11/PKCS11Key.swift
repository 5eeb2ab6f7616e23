import CPKCS11
import MultiAuthCore
import MultiAuthCrypto
public import MultiAuthSigV4
import Synchronization

/// A private key in a PKCS#11 token (an HSM, a smart card, SoftHSM), signing Roles Anywhere
/// requests inside the token: the key never leaves it.
///
/// ```swift
/// let key = try await PKCS11Key.open(PKCS11URI("pkcs11:token=host;object=roles-anywhere?pin-source=/etc/host.pin"),
///                                    module: "/usr/lib/softhsm/libsofthsm2.so")
/// let identity = try X509SigningIdentity(certificateDER: try await key.certificate() ?? [], key: key)
/// ```
///
/// One session is opened (and logged in) and signatures take turns on it. When the token
/// loses it (reset, removed and put back, logged out: `CKR_SESSION_HANDLE_INVALID`,
/// `CKR_DEVICE_REMOVED` and the like), a new session is opened and logged in once, and the
/// call tried again; a second failure is the error. The PIN is kept for that, in memory only.
public final class PKCS11Key: X509KeySigner, @unchecked Sendable {
    /// RSA or ECDSA, from the key's `CKA_KEY_TYPE`.
    public let algorithm: X509KeyAlgorithm
    let module: PKCS11Module
    let uri: PKCS11URI
    private let pin: [UInt8]?
    /// The session and the key's handle in it. The session allows one operation at a time, so
    /// every call holds this lock.
    let opened: Mutex<(session: ck_session_handle_t, key: ck_object_handle_t)>

    private init(module: PKCS11Module, session: ck_session_handle_t, key: ck_object_handle_t, algorithm: X509KeyAlgorithm, uri: PKCS11URI, pin: [UInt8]?) {
        self.module = module
        opened = Mutex((session, key))
        self.algorithm = algorithm
        self.uri = uri
        self.pin = pin
    }

    deinit { _ = module.functions.pointee.C_CloseSession?(opened.withLock { $0.session }) }

    /// The private key `uri` names, in `module` (default: the URI's `module-path`, else p11-kit's
    /// proxy), logged in with the URI's `pin-value` or `pin-source`, else `pin`.
    /// - Throws: ``X509IdentityError/pkcs11(_:)`` naming the module, token, PIN or object that failed.
    public static func open(_ uri: PKCS11URI, module: String? = nil, pin: [UInt8]? = nil) async throws(X509IdentityError) -> PKCS11Key {
        let pin = try uri.pin() ?? pin
        let modulePath = module ?? uri.queryText("module-path") ?? PKCS11Module.defaultPath
        return try await runBlocking { () -> Result<PKCS11Key, X509IdentityError> in
            do throws(X509IdentityError) {
                let module = try PKCS11Module.named(modulePath)
                let (session, key, algorithm) = try openSession(module: module, uri: uri, pin: pin)
                return .success(PKCS11Key(module: module, session: session, key: key, algorithm: algorithm, uri: uri, pin: pin))
            } catch { return .failure(error) }
        }
    }

    /// A logged-in session on the token `uri` selects, and the key's handle and type in it.
    private static func openSession(
        module: PKCS11Module, uri: PKCS11URI, pin: [UInt8]?
    ) throws(X509IdentityError) -> (ck_session_handle_t, ck_object_handle_t, X509KeyAlgorithm) {
        let token = PKCS11Token(module: module)
        let slot = try token.slot(matching: uri)
        let session = try token.openSession(slot: slot, pin: pin)
        do throws(X509IdentityError) {
            let key = try token.object(in: session, class: ck_object_class_t(CKO_PRIVATE_KEY), uri: uri, needsLogin: pin == nil)
            let type = try token.unsignedAttribute(ck_attribute_type_t(CKA_KEY_TYPE), of: key, in: session)
            switch type {
            case UInt(CKK_RSA): return (session, key, .rsa)
            case UInt(CKK_EC): return (session, key, .ecdsa)
            default: throw .pkcs11("the key '\(PKCS11URI.shown(uri.description))' is neither RSA nor EC")
            }
        } catch {
            _ = module.functions.pointee.C_CloseSession?(session)
            throw error
        }
    }

    /// The DER certificate stored beside the key (the same `object` label or `id`), if any.
    public func certificate() async throws(X509IdentityError) -> [UInt8]? {
        try await runBlocking { () -> Result<[UInt8]?, X509IdentityError> in
            self.opened.withLock { opened in
                let token = PKCS11Token(module: self.module)
                do throws(X509IdentityError) {
                    guard let object = try token.objectIfAny(in: opened.session, class: ck_object_class_t(CKO_CERTIFICATE), uri: self.uri) else { return .success(nil) }
                    return .success(try token.bytesAttribute(ck_attribute_type_t(CKA_VALUE), of: object, in: opened.session))
                } catch { return .failure(error) }
            }
        }
    }

    /// The token's signature of `message`'s SHA-256: `CKM_SHA256_RSA_PKCS`, or `CKM_ECDSA`
    /// over the digest, re-encoded from `r || s` to DER.
    public func signature(for message: [UInt8]) async throws(X509IdentityError) -> [UInt8] {
        let (data, mechanism) = algorithm == .rsa
            ? (message, ck_mechanism_type_t(CKM_SHA256_RSA_PKCS)) : (SHA256Hasher.hash(message).bytes, ck_mechanism_type_t(CKM_ECDSA))
        let raw = try await runBlocking { () -> Result<[UInt8], X509IdentityError> in
            self.opened.withLock { opened in self.sign(data, mechanism: mechanism, opened: &opened) }
        }
        guard algorithm == .ecdsa else { return raw }
        do { return try ECDSASignature.der(raw: raw) } catch { throw .pkcs11("the token's ECDSA signature is malformed") }
    }

    /// Signs in the open session; when the token lost it, in a new one, once.
    private func sign(
        _ data: [UInt8], mechanism: ck_mechanism_type_t, opened: inout (session: ck_session_handle_t, key: ck_object_handle_t)
    ) -> Result<[UInt8], X509IdentityError> {
        let token = PKCS11Token(module: module)
        do throws(PKCS11Token.CallFailure) { return .success(try token.sign(data, mechanism: mechanism, key: opened.key, in: opened.session)) } catch {
            guard error.sessionLost else { return .failure(error.error) }
        }
        _ = module.functions.pointee.C_CloseSession?(opened.session)
        do throws(X509IdentityError) {
            let (session, key, _) = try Self.openSession(module: module, uri: uri, pin: pin)
            opened = (session, key)
        } catch {
            return .failure(.pkcs11("the token lost its session, and a new one could not be opened: \(error)"))
        }
        do throws(PKCS11Token.CallFailure) { return .success(try token.sign(data, mechanism: mechanism, key: opened.key, in: opened.session)) } catch {
            return .failure(.pkcs11("the token lost its session, and refused again in a new one: \(error.error)"))
        }
    }
}

extension PKCS11URI: CustomStringConvertible {
    /// The selecting part (path attributes), never the query that may hold a PIN; a path
    /// attribute RFC 7512 does not name for selecting (a `pin-value` put in the path) shows
    /// only its name.
    public var description: String {
        "pkcs11:" + path.keys.sorted().map { name in
            Self.attributeNames.contains(name) && !name.hasPrefix("pin-") ? "\(name)=\(Self.encoded(path[name] ?? []))" : "\(name)=\(Redaction.placeholder)"
        }.joined(separator: ";")
    }

    /// A value as a URI writes it: printable ASCII as is, other bytes as `%XX`.
    private static func encoded(_ value: [UInt8]) -> String {
        value.map { byte in
            (0x21...0x7e).contains(byte) && byte != UInt8(ascii: "%") && byte != UInt8(ascii: ";") && byte != UInt8(ascii: "?")
                ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }.joined()
    }

    /// The PIN the query gives: `pin-value`, or the contents of `pin-source` (a path or a
    /// `file:` URI; one trailing line ending dropped).
    func pin() throws(X509IdentityError) -> [UInt8]? {
        if let value = query["pin-value"] { return value }
        guard let source = queryText("pin-source") else { return nil }
        let path = source.hasPrefix("file://") ? String(source.dropFirst("file://".count)) : source.hasPrefix("file:") ? String(source.dropFirst("file:".count)) : source
        switch BoundedFileRead.contents(atPath: path, limit: 4096) {
        case .success(var bytes):
            if bytes.last == 0x0a { bytes.removeLast() }
            if bytes.last == 0x0d { bytes.removeLast() }
            return bytes
        case .failure(let failure): throw .pkcs11("the pin-source \(path) cannot be read: \(failure)")
        }
    }
}

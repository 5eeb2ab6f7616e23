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
/// One session is opened (and logged in) for the key's life; signatures take turns on it.
public final class PKCS11Key: X509KeySigner, @unchecked Sendable {
    /// RSA or ECDSA, from the key's `CKA_KEY_TYPE`.
    public let algorithm: X509KeyAlgorithm
    let module: PKCS11Module
    let session: ck_session_handle_t
    let key: ck_object_handle_t
    let uri: PKCS11URI
    /// The session allows one operation at a time.
    private let turn = Mutex(())

    private init(module: PKCS11Module, session: ck_session_handle_t, key: ck_object_handle_t, algorithm: X509KeyAlgorithm, uri: PKCS11URI) {
        self.module = module
        self.session = session
        self.key = key
        self.algorithm = algorithm
        self.uri = uri
    }

    deinit { _ = module.functions.pointee.C_CloseSession?(session) }

    /// The private key `uri` names, in `module` (default: the URI's `module-path`, else p11-kit's
    /// proxy), logged in with the URI's `pin-value` or `pin-source`, else `pin`.
    /// - Throws: ``X509IdentityError/pkcs11(_:)`` naming the module, token, PIN or object that failed.
    public static func open(_ uri: PKCS11URI, module: String? = nil, pin: [UInt8]? = nil) async throws(X509IdentityError) -> PKCS11Key {
        let pin = try uri.pin() ?? pin
        let modulePath = module ?? uri.queryText("module-path") ?? PKCS11Module.defaultPath
        return try await runBlocking { () -> Result<PKCS11Key, X509IdentityError> in
            do throws(X509IdentityError) { return .success(try openWaiting(uri, modulePath: modulePath, pin: pin)) } catch { return .failure(error) }
        }
    }

    private static func openWaiting(_ uri: PKCS11URI, modulePath: String, pin: [UInt8]?) throws(X509IdentityError) -> PKCS11Key {
        let module = try PKCS11Module.named(modulePath)
        let token = PKCS11Token(module: module)
        let slot = try token.slot(matching: uri)
        let session = try token.openSession(slot: slot, pin: pin)
        do throws(X509IdentityError) {
            let key = try token.object(in: session, class: ck_object_class_t(CKO_PRIVATE_KEY), uri: uri, needsLogin: pin == nil)
            let type = try token.unsignedAttribute(ck_attribute_type_t(CKA_KEY_TYPE), of: key, in: session)
            let algorithm: X509KeyAlgorithm
            switch type {
            case UInt(CKK_RSA): algorithm = .rsa
            case UInt(CKK_EC): algorithm = .ecdsa
            default: throw .pkcs11("the key '\(PKCS11URI.shown(uri.description))' is neither RSA nor EC")
            }
            return PKCS11Key(module: module, session: session, key: key, algorithm: algorithm, uri: uri)
        } catch {
            _ = module.functions.pointee.C_CloseSession?(session)
            throw error
        }
    }

    /// The DER certificate stored beside the key (the same `object` label or `id`), if any.
    public func certificate() async throws(X509IdentityError) -> [UInt8]? {
        try await runBlocking { () -> Result<[UInt8]?, X509IdentityError> in
            self.turn.withLock { _ in
                let token = PKCS11Token(module: self.module)
                do throws(X509IdentityError) {
                    guard let object = try token.objectIfAny(in: self.session, class: ck_object_class_t(CKO_CERTIFICATE), uri: self.uri) else { return .success(nil) }
                    return .success(try token.bytesAttribute(ck_attribute_type_t(CKA_VALUE), of: object, in: self.session))
                } catch { return .failure(error) }
            }
        }
    }

    /// The token's signature of `message`'s SHA-256: `CKM_SHA256_RSA_PKCS`, or `CKM_ECDSA`
    /// over the digest, re-encoded from `r || s` to DER.
    public func signature(for message: [UInt8]) async throws(X509IdentityError) -> [UInt8] {
        let algorithm = algorithm
        return try await runBlocking { () -> Result<[UInt8], X509IdentityError> in
            self.turn.withLock { _ in
                let token = PKCS11Token(module: self.module)
                do throws(X509IdentityError) {
                    switch algorithm {
                    case .rsa: return .success(try token.sign(message, mechanism: ck_mechanism_type_t(CKM_SHA256_RSA_PKCS), key: self.key, in: self.session))
                    case .ecdsa:
                        let raw = try token.sign(SHA256Hasher.hash(message).bytes, mechanism: ck_mechanism_type_t(CKM_ECDSA), key: self.key, in: self.session)
                        do { return .success(try ECDSASignature.der(raw: raw)) } catch { return .failure(.pkcs11("the token's ECDSA signature is malformed")) }
                    }
                } catch { return .failure(error) }
            }
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

import FIDO2Shims

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import MultiAuthCore

/// A FIDO2 security key through Debian's libfido2, opened at the first use (no build-time
/// dependency): each operation opens the authenticator, asks for the user's touch, and closes
/// it, on a thread of the blocking pool.
///
/// `device` is a hidraw path (`/dev/hidraw3`), `nil` for the first authenticator libfido2
/// finds, or `unix:PATH` for a software authenticator that serves CTAP over a UNIX socket
/// (frames: a command byte, a 4-byte big-endian length and the payload; answers: the length
/// and the payload).
public struct FIDO2Authenticator: PasskeyAuthenticator, RedactedDescribing {
    /// Where the authenticator is; `nil` for the first one found.
    public let device: String?
    /// How long to wait for the user's touch, in milliseconds.
    public let timeoutMilliseconds: Int32
    private let pin: SecretText?

    /// - Parameters:
    ///   - device: a hidraw path, `unix:PATH`, or `nil` for the first authenticator found.
    ///   - pin: the authenticator's PIN, when it needs one for user verification.
    ///   - timeoutMilliseconds: the wait for the user's touch (30 s by default).
    public init(device: String? = nil, pin: [UInt8]? = nil, timeoutMilliseconds: Int32 = 30_000) {
        self.device = device
        self.pin = pin.map(SecretText.init)
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The device and timeout; never the PIN.
    public var description: String {
        "FIDO2Authenticator(\(device ?? "first found"), \(timeoutMilliseconds) ms\(pin == nil ? "" : ", PIN " + Redaction.placeholder))"
    }

    public func makeCredential(_ request: MakeCredentialRequest) async throws(WebAuthnError) -> MadeCredential {
        try Self.load()
        let (device, pin, timeout) = (device ?? "", pin, timeoutMilliseconds)
        return try await runBlocking { () -> Result<MadeCredential, WebAuthnError> in
            Result { () throws(WebAuthnError) in try Self.make(request, device: device, pin: pin, timeout: timeout) }
        }
    }

    public func getAssertion(_ request: GetAssertionRequest) async throws(WebAuthnError) -> Assertion {
        try Self.load()
        let (device, pin, timeout) = (device ?? "", pin, timeoutMilliseconds)
        return try await runBlocking { () -> Result<Assertion, WebAuthnError> in
            Result { () throws(WebAuthnError) in try Self.assert(request, device: device, pin: pin, timeout: timeout) }
        }
    }

    private static func load() throws(WebAuthnError) {
        if let problem = multiauth_fido_load() { throw WebAuthnError(.libraryMissing, String(cString: problem)) }
    }

    private static func make(_ request: MakeCredentialRequest, device: String, pin: SecretText?, timeout: Int32) throws(WebAuthnError) -> MadeCredential {
        var made = multiauth_fido_made()
        let texts = CStrings([request.relyingPartyId, request.relyingPartyName, request.userName, request.userDisplayName])
        let status = withExtendedLifetime(texts) { CByteLists(request.excludeCredentialIds).with { ids, counts in
            request.userId.withUnsafeBufferPointer { user in
                request.clientDataHash.withUnsafeBufferPointer { hash in
                    pin.withCString { pin in
                        var asked = multiauth_fido_make_request(
                            rp_id: texts[0], rp_name: texts[1], user_id: user.baseAddress, user_id_count: user.count,
                            user_name: texts[2], user_display_name: texts[3], client_data_hash: hash.baseAddress,
                            exclude_ids: ids, exclude_id_counts: counts, exclude_count: request.excludeCredentialIds.count,
                            resident_key: request.residentKey ? 2 : 0, user_verification: request.userVerification ? 2 : 0)
                        return multiauth_fido_make_credential(device, pin, timeout, &asked, &made)
                    }
                }
            }
        } }
        defer {
            multiauth_fido_bytes_free(&made.authenticator_data)
            multiauth_fido_bytes_free(&made.credential_id)
        }
        try check(status, doing: "make a passkey", device: device)
        return MadeCredential(authenticatorData: made.authenticator_data.array, credentialId: made.credential_id.array)
    }

    private static func assert(_ request: GetAssertionRequest, device: String, pin: SecretText?, timeout: Int32) throws(WebAuthnError) -> Assertion {
        var assertion = multiauth_fido_assertion()
        let texts = CStrings([request.relyingPartyId])
        let status = withExtendedLifetime(texts) { CByteLists(request.allowCredentialIds).with { ids, counts in
            request.clientDataHash.withUnsafeBufferPointer { hash in
                pin.withCString { pin in
                    var asked = multiauth_fido_assert_request(
                        rp_id: texts[0], client_data_hash: hash.baseAddress, allow_ids: ids, allow_id_counts: counts,
                        allow_count: request.allowCredentialIds.count, user_verification: request.userVerification ? 2 : 0)
                    return multiauth_fido_get_assertion(device, pin, timeout, &asked, &assertion)
                }
            }
        } }
        defer {
            multiauth_fido_bytes_free(&assertion.authenticator_data)
            multiauth_fido_bytes_free(&assertion.signature)
            multiauth_fido_bytes_free(&assertion.credential_id)
            multiauth_fido_bytes_free(&assertion.user_handle)
        }
        try check(status, doing: "sign in with a passkey", device: device)
        let handle = assertion.user_handle.array
        return Assertion(
            authenticatorData: assertion.authenticator_data.array, signature: assertion.signature.array,
            credentialId: assertion.credential_id.array, userHandle: handle.isEmpty ? nil : handle)
    }

    private static func check(_ status: Int32, doing what: String, device: String) throws(WebAuthnError) {
        guard status != 0 else { return }
        let named = device.isEmpty ? "the authenticator" : "the authenticator at \(device)"
        let reason = String(cString: multiauth_fido_strerr(status))
        if status == MULTIAUTH_FIDO_NO_DEVICE {
            throw WebAuthnError(.authenticatorAbsent, device.isEmpty ? "cannot \(what): \(reason)" : "cannot \(what): no authenticator answers at \(device)", status: status)
        }
        throw WebAuthnError(.authenticatorFailed, "cannot \(what): \(named) answered \(reason) (libfido2 code \(status))", status: status)
    }
}

/// A PIN held as bytes, passed to C as a NUL-terminated string; never described.
private struct SecretText: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

extension Optional where Wrapped == SecretText {
    fileprivate func withCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let secret = self else { return body(nil) }
        var terminated = secret.bytes.map { CChar(bitPattern: $0) } + [0]
        defer { for index in terminated.indices { terminated[index] = 0 } }
        return terminated.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

extension multiauth_fido_bytes {
    fileprivate var array: [UInt8] {
        guard let bytes, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }
}

/// NUL-terminated copies of strings, alive as long as this value.
private final class CStrings {
    private let pointers: [UnsafeMutablePointer<CChar>]

    init(_ texts: [String]) { pointers = texts.map { strdup($0)! } }

    subscript(index: Int) -> UnsafePointer<CChar> { UnsafePointer(pointers[index]) }

    deinit { pointers.forEach { free($0) } }
}

/// Lists of byte strings as the C arrays of pointers and lengths the shims take.
private struct CByteLists {
    let lists: [[UInt8]]

    init(_ lists: [[UInt8]]) { self.lists = lists }

    func with<R>(_ body: (UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int>?) -> R) -> R {
        let buffers = lists.map { list in
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(list.count, 1))
            _ = copy.initialize(from: list)
            return copy
        }
        defer { buffers.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<UInt8>?] = buffers.map { UnsafePointer($0.baseAddress) }
        let counts = lists.map(\.count)
        return pointers.withUnsafeBufferPointer { pointers in
            counts.withUnsafeBufferPointer { counts in body(pointers.baseAddress, counts.baseAddress) }
        }
    }
}

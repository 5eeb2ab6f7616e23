import CPKCS11
import MultiAuthSigV4

/// The PKCS#11 calls a key needs, on one module: find the token, open and log in a session,
/// find objects, read attributes, sign. Each failure names the call and its return code.
struct PKCS11Token {
    let module: PKCS11Module
    private var f: ck_function_list { module.functions.pointee }

    /// The first slot whose token matches the URI's `token`, `serial`, `manufacturer`,
    /// `model` and `slot-id` (those given).
    func slot(matching uri: PKCS11URI) throws(X509IdentityError) -> ck_slot_id_t {
        var count: UInt = 0
        try check(f.C_GetSlotList?(1, nil, &count), "C_GetSlotList")
        var slots = [ck_slot_id_t](repeating: 0, count: Int(count))
        try check(f.C_GetSlotList?(1, &slots, &count), "C_GetSlotList")
        var unreadable: [String] = []
        for slot in slots.prefix(Int(count)) {
            if let wanted = uri.text("slot-id"), wanted != String(slot) { continue }
            var info = ck_token_info()
            let rv = f.C_GetTokenInfo?(slot, &info) ?? ck_rv_t(CKR_FUNCTION_NOT_SUPPORTED)
            guard rv == CKR_OK else {
                unreadable.append("slot \(slot): \(PKCS11Module.returnCode(rv))")
                continue
            }
            let fields = [
                ("token", Self.text(&info.label)), ("serial", Self.text(&info.serial_number)), ("manufacturer", Self.text(&info.manufacturer_id)),
                ("model", Self.text(&info.model)),
            ]
            if fields.allSatisfy({ name, value in uri.text(name).map { $0 == value } ?? true }) { return slot }
        }
        let problems = unreadable.isEmpty ? "" : "; unreadable: " + unreadable.joined(separator: ", ")
        throw .pkcs11("no token matches '\(PKCS11URI.shown(uri.description))' in \(module.path) (\(count) token(s) present\(problems))")
    }

    /// A read-only session on `slot`, logged in as the user with `pin` when one is given.
    func openSession(slot: ck_slot_id_t, pin: [UInt8]?) throws(X509IdentityError) -> ck_session_handle_t {
        var session: ck_session_handle_t = 0
        try check(f.C_OpenSession?(slot, ck_flags_t(CKF_SERIAL_SESSION), nil, nil, &session), "C_OpenSession")
        guard var pin else { return session }
        defer { for index in pin.indices { pin[index] = 0 } }
        let rv = f.C_Login?(session, ck_user_type_t(CKU_USER), &pin, UInt(pin.count)) ?? ck_rv_t(CKR_FUNCTION_NOT_SUPPORTED)
        guard rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN else {
            _ = f.C_CloseSession?(session)
            throw .pkcs11("the token refused the PIN: \(PKCS11Module.returnCode(rv))")
        }
        return session
    }

    /// The one object of `objectClass` the URI's `object` (label) and `id` select.
    func object(in session: ck_session_handle_t, class objectClass: ck_object_class_t, uri: PKCS11URI, needsLogin: Bool) throws(X509IdentityError) -> ck_object_handle_t {
        guard let object = try objectIfAny(in: session, class: objectClass, uri: uri) else {
            let hint = needsLogin ? " (private keys are visible only after login: give pin-value or pin-source)" : ""
            throw .pkcs11("no private key matches '\(PKCS11URI.shown(uri.description))'\(hint)")
        }
        return object
    }

    /// The object of `objectClass` the URI selects, nil when none; more than one is refused.
    func objectIfAny(in session: ck_session_handle_t, class objectClass: ck_object_class_t, uri: PKCS11URI) throws(X509IdentityError) -> ck_object_handle_t? {
        var objectClass = objectClass
        var label = uri.path["object"] ?? []
        var id = uri.path["id"] ?? []
        var found: [ck_object_handle_t] = [0, 0]
        var count: UInt = 0
        let started = withUnsafeMutableBytes(of: &objectClass) { classBytes in
            label.withUnsafeMutableBytes { labelBytes in
                id.withUnsafeMutableBytes { idBytes in
                    var template = [ck_attribute(type: ck_attribute_type_t(CKA_CLASS), value: classBytes.baseAddress, value_len: UInt(classBytes.count))]
                    if uri.path["object"] != nil {
                        template.append(ck_attribute(type: ck_attribute_type_t(CKA_LABEL), value: labelBytes.baseAddress, value_len: UInt(labelBytes.count)))
                    }
                    if uri.path["id"] != nil { template.append(ck_attribute(type: ck_attribute_type_t(CKA_ID), value: idBytes.baseAddress, value_len: UInt(idBytes.count))) }
                    return f.C_FindObjectsInit?(session, &template, UInt(template.count))
                }
            }
        }
        try check(started, "C_FindObjectsInit")
        let searched = f.C_FindObjects?(session, &found, 2, &count)
        _ = f.C_FindObjectsFinal?(session)
        try check(searched, "C_FindObjects")
        if count > 1 { throw .pkcs11("'\(PKCS11URI.shown(uri.description))' selects more than one object: add object= or id=") }
        return count == 1 ? found[0] : nil
    }

    /// A `CK_ULONG` attribute (`CKA_KEY_TYPE`).
    func unsignedAttribute(_ type: ck_attribute_type_t, of object: ck_object_handle_t, in session: ck_session_handle_t) throws(X509IdentityError) -> UInt {
        var value: UInt = 0
        let rv = withUnsafeMutableBytes(of: &value) { bytes in
            var attribute = ck_attribute(type: type, value: bytes.baseAddress, value_len: UInt(bytes.count))
            return f.C_GetAttributeValue?(session, object, &attribute, 1)
        }
        try check(rv, "C_GetAttributeValue")
        return value
    }

    /// A byte-string attribute (`CKA_VALUE` of a certificate).
    func bytesAttribute(_ type: ck_attribute_type_t, of object: ck_object_handle_t, in session: ck_session_handle_t) throws(X509IdentityError) -> [UInt8] {
        var attribute = ck_attribute(type: type, value: nil, value_len: 0)
        try check(f.C_GetAttributeValue?(session, object, &attribute, 1), "C_GetAttributeValue")
        var value = [UInt8](repeating: 0, count: Int(attribute.value_len))
        let rv = value.withUnsafeMutableBytes { bytes in
            attribute.value = bytes.baseAddress
            return f.C_GetAttributeValue?(session, object, &attribute, 1)
        }
        try check(rv, "C_GetAttributeValue")
        return Array(value.prefix(Int(attribute.value_len)))
    }

    /// `C_SignInit` and `C_Sign` of `data` with `mechanism` (no parameters).
    func sign(_ data: [UInt8], mechanism type: ck_mechanism_type_t, key: ck_object_handle_t, in session: ck_session_handle_t) throws(CallFailure) -> [UInt8] {
        var mechanism = ck_mechanism(mechanism: type, parameter: nil, parameter_len: 0)
        if let failed = failure(f.C_SignInit?(session, &mechanism, key), "C_SignInit", signing: true) { throw failed }
        var input = data
        var length: UInt = 0
        if let failed = failure(f.C_Sign?(session, &input, UInt(input.count), nil, &length), "C_Sign", signing: true) { throw failed }
        var signature = [UInt8](repeating: 0, count: Int(length))
        if let failed = failure(f.C_Sign?(session, &input, UInt(input.count), &signature, &length), "C_Sign", signing: true) { throw failed }
        return Array(signature.prefix(Int(length)))
    }

    /// A failed call, with the token's return value.
    struct CallFailure: Error {
        let rv: ck_rv_t
        let error: X509IdentityError

        /// The session is gone (the token was reset, removed or logged out): a new one may work.
        var sessionLost: Bool {
            [CKR_SESSION_HANDLE_INVALID, CKR_SESSION_CLOSED, CKR_DEVICE_REMOVED, CKR_TOKEN_NOT_PRESENT, CKR_USER_NOT_LOGGED_IN].contains(UInt(rv))
        }
    }

    private func check(_ rv: ck_rv_t?, _ call: String, signing: Bool = false) throws(X509IdentityError) {
        if let failure = failure(rv, call, signing: signing) { throw failure.error }
    }

    private func failure(_ rv: ck_rv_t?, _ call: String, signing: Bool = false) -> CallFailure? {
        let rv = rv ?? ck_rv_t(CKR_FUNCTION_NOT_SUPPORTED)
        guard rv != CKR_OK else { return nil }
        let what = signing ? "the token refused to sign" : "\(call) failed"
        return CallFailure(rv: rv, error: .pkcs11("\(what) (\(module.path)): \(PKCS11Module.returnCode(rv))"))
    }

    /// A fixed-width, space-padded token field as text.
    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0, as: UTF8.self) }.trimmedTrailingSpaces
    }
}

extension String {
    fileprivate var trimmedTrailingSpaces: String {
        var text = self
        while text.last == " " || text.last == "\0" { text.removeLast() }
        return text
    }
}

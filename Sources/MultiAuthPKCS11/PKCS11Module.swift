import CPKCS11
import MultiAuthSigV4
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A PKCS#11 module opened with `dlopen` and initialized once for the process (with the
/// OS's locking, so its sessions may be used from any thread), then kept: modules are made to
/// stay loaded, and finalizing one under another user's session would break it.
final class PKCS11Module: @unchecked Sendable {
    /// The module's function list: read-only after `C_GetFunctionList`.
    let functions: UnsafeMutablePointer<ck_function_list>
    let path: String

    private init(path: String, functions: UnsafeMutablePointer<ck_function_list>) {
        self.path = path
        self.functions = functions
    }

    private static let opened = Mutex<[String: PKCS11Module]>([:])

    /// p11-kit's proxy, which loads every module registered on the system.
    static let defaultPath = "p11-kit-proxy.so"

    /// The module at `path` (a file, or a library name `dlopen` searches for), initialized.
    /// - Throws: ``X509IdentityError/pkcs11(_:)`` when it cannot be loaded or initialized.
    static func named(_ path: String) throws(X509IdentityError) -> PKCS11Module {
        let result: Result<PKCS11Module, X509IdentityError> = opened.withLock { modules in
            if let module = modules[path] { return .success(module) }
            do throws(X509IdentityError) {
                let module = try load(path)
                modules[path] = module
                return .success(module)
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func load(_ path: String) throws(X509IdentityError) -> PKCS11Module {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown"
            throw .pkcs11("the module \(path) cannot be loaded: \(reason)")
        }
        typealias GetFunctionList = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<ck_function_list>?>?) -> ck_rv_t
        guard let symbol = dlsym(handle, "C_GetFunctionList") else { throw .pkcs11("\(path) is not a PKCS#11 module (no C_GetFunctionList)") }
        var list: UnsafeMutablePointer<ck_function_list>?
        let rv = unsafeBitCast(symbol, to: GetFunctionList.self)(&list)
        guard rv == CKR_OK, let list else { throw .pkcs11("\(path): C_GetFunctionList failed: \(returnCode(rv))") }
        var arguments = ck_c_initialize_args()
        arguments.flags = ck_flags_t(CKF_OS_LOCKING_OK)
        let initialized = withUnsafeMutablePointer(to: &arguments) { list.pointee.C_Initialize?(UnsafeMutableRawPointer($0)) } ?? ck_rv_t(CKR_FUNCTION_NOT_SUPPORTED)
        guard initialized == CKR_OK || initialized == CKR_CRYPTOKI_ALREADY_INITIALIZED else {
            throw .pkcs11("\(path): C_Initialize failed: \(returnCode(initialized))")
        }
        return PKCS11Module(path: path, functions: list)
    }

    /// A return code by its PKCS#11 name, for the codes a user can act on.
    static func returnCode(_ rv: ck_rv_t) -> String {
        let names: [ck_rv_t: String] = [
            ck_rv_t(CKR_PIN_INCORRECT): "CKR_PIN_INCORRECT", ck_rv_t(CKR_PIN_LOCKED): "CKR_PIN_LOCKED", ck_rv_t(CKR_PIN_LEN_RANGE): "CKR_PIN_LEN_RANGE",
            ck_rv_t(CKR_TOKEN_NOT_PRESENT): "CKR_TOKEN_NOT_PRESENT", ck_rv_t(CKR_USER_NOT_LOGGED_IN): "CKR_USER_NOT_LOGGED_IN",
            ck_rv_t(CKR_DEVICE_REMOVED): "CKR_DEVICE_REMOVED", ck_rv_t(CKR_DEVICE_ERROR): "CKR_DEVICE_ERROR", ck_rv_t(CKR_GENERAL_ERROR): "CKR_GENERAL_ERROR",
            ck_rv_t(CKR_FUNCTION_FAILED): "CKR_FUNCTION_FAILED", ck_rv_t(CKR_MECHANISM_INVALID): "CKR_MECHANISM_INVALID",
            ck_rv_t(CKR_KEY_FUNCTION_NOT_PERMITTED): "CKR_KEY_FUNCTION_NOT_PERMITTED", ck_rv_t(CKR_SESSION_HANDLE_INVALID): "CKR_SESSION_HANDLE_INVALID",
            ck_rv_t(CKR_SESSION_CLOSED): "CKR_SESSION_CLOSED",
            ck_rv_t(CKR_CRYPTOKI_NOT_INITIALIZED): "CKR_CRYPTOKI_NOT_INITIALIZED", ck_rv_t(CKR_ARGUMENTS_BAD): "CKR_ARGUMENTS_BAD",
        ]
        return names[rv] ?? "CKR 0x" + String(rv, radix: 16)
    }
}

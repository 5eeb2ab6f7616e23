import MultiAuthCore
import MultiAuthCrypto

/// The file beside a store that keeps its KMS-wrapped data key (`STORE.kms-key`, mode 0600,
/// base64): useless without KMS, so it can sit beside the store on any host.
public enum WrappedKeyFile {
    /// Where the wrapped key of the store at `storePath` lives.
    public static func path(forStore storePath: String) -> String { storePath + ".kms-key" }

    /// Saves `wrapped` for a new store; an existing file is never replaced (the store it
    /// opens would be lost).
    public static func create(_ wrapped: [UInt8], forStore storePath: String) throws(KMSKeyError) {
        let path = path(forStore: storePath)
        do {
            if try PathSafety.checkFile(path, forbiddenMode: 0o077) {
                throw KMSKeyError.invalidSetting("\(path) already exists; it was left as it is")
            }
            try PathSafety.prepareFolder(PathSafety.parentDirectory(of: path))
        } catch let error as KMSKeyError {
            throw error
        } catch {
            throw .invalidSetting("\(error)")
        }
        do { try AtomicFileWrite.replace(path: path, contents: Array((Base64.encode(wrapped) + "\n").utf8)) } catch {
            throw .invalidSetting(error.description)
        }
    }

    /// The wrapped key of the store at `storePath`.
    public static func read(forStore storePath: String) throws(KMSKeyError) -> [UInt8] {
        let path = path(forStore: storePath)
        do {
            guard try PathSafety.checkFile(path, forbiddenMode: 0o077) else {
                throw KMSKeyError.invalidSetting("no wrapped key at \(path) (the store was not made with --kms-key-id)")
            }
        } catch let error as KMSKeyError {
            throw error
        } catch {
            throw .invalidSetting("\(error)")
        }
        switch BoundedFileRead.contents(atPath: path, limit: 16 << 10) {
        case .success(let bytes):
            do { return try Base64.decode(String(decoding: bytes, as: UTF8.self).trimmedWhitespace) } catch {
                throw .invalidSetting("\(path) is not base64")
            }
        case .failure(let failure):
            throw .invalidSetting("\(path) \(failure)")
        }
    }
}

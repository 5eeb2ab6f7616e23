import MultiAuthCore
import MultiAuthCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the AWS CLI's token caches (SSO logins, `aws login` sessions) are written back: JSON
/// with sorted keys, atomically, mode 0600, in a folder made 0700 first.
enum CacheFileWrite {
    /// What could not be done, and on which path (the folder or the file).
    struct Failure: Error {
        let path: String
        let problem: String
    }

    static func write(_ fields: [String: JSONValue], to path: String, in folder: String) throws(Failure) {
        do throws(PathSafetyError) { try PathSafety.prepareFolder(folder) } catch {
            throw Failure(path: folder, problem: "cannot be prepared: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard var bytes = try? Array(encoder.encode(JSONValue.object(fields))) else { throw Failure(path: path, problem: "cannot be encoded") }
        defer { SecureMemory.zero(&bytes) }
        do throws(AtomicFileWriteError) { try AtomicFileWrite.replace(path: path, contents: bytes) } catch {
            throw Failure(path: path, problem: "cannot be written: \(error.reason)")
        }
    }
}

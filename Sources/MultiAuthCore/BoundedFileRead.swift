#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way MultiAuth reads a whole local file it was pointed at (config files, key and
/// passphrase files, token files, request files): never more than a limit, so a huge or
/// endless file (`/dev/zero`, a 200 MB "passphrase") is refused at once instead of filling
/// memory. Each caller documents its limit and words its own error.
public enum BoundedFileRead {
    /// The limits callers use, named by what the file is.
    public static let secretLimit = 64 << 10
    /// A config or settings file.
    public static let configLimit = 4 << 20
    /// A raw request file (`sign --request`, `verify --request`).
    public static let requestLimit = 16 << 20

    /// The whole of `path`, at most `limit` bytes (nil: it does not exist).
    public static func contents(atPath path: String, limit: Int) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unreadable(reason: String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(reason: String(cString: strerror(errno))))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { return .failure(.tooLarge(limit: limit)) }
        }
    }

    fileprivate static func limitText(_ limit: Int) -> String {
        limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : limit % (1 << 10) == 0 ? "\(limit >> 10) KiB" : "\(limit) bytes"
    }
}

extension BoundedFileRead {
    /// Why a file was not read.
    public struct Failure: CodedError, Sendable, Equatable {
        /// The failure with its details.
        package let kind: Kind

        /// What failed, as a stable name to switch on (an `ErrorCode`).
        public var code: ErrorCode { kind.code }
        /// What is wrong with the file, to follow its name.
        public var message: String { kind.description }
        public var description: String { message }

        /// It does not exist, or cannot be opened or read (`reason` says which).
        public static func unreadable(reason: String) -> Failure { Failure(kind: .unreadable(reason: reason)) }
        /// It holds more than `limit` bytes.
        public static func tooLarge(limit: Int) -> Failure { Failure(kind: .tooLarge(limit: limit)) }
    }
}

extension BoundedFileRead.Failure {
    /// Each failure with its details, for matching inside MultiAuth.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case unreadable(reason: String)
        case tooLarge(limit: Int)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .unreadable(let reason): "cannot be read (\(reason))"
            case .tooLarge(let limit): "is larger than \(BoundedFileRead.limitText(limit)), the most that is read"
            }
        }

        /// `FileRead.` and the case's name, fixed once published.
        package var code: ErrorCode {
            switch self {
            case .unreadable: "FileRead.unreadable"
            case .tooLarge: "FileRead.tooLarge"
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A body read once from a descriptor (standard input) into a private temporary file, so it
/// can be hashed, signed and replayed like a file body, with memory flat whatever its size.
///
/// The file is created with mode 0600 in `TMPDIR` (else `/tmp`) and removed by ``remove()``
/// or when the value is released; a failed spool leaves nothing behind.
public final class SpooledBody: Sendable {
    /// The temporary file.
    public let path: String
    /// The number of bytes spooled.
    public let length: Int

    /// Copies everything `descriptor` yields until its end.
    /// - Throws: ``BodyError/spoolFailed(body:reason:)`` naming `name` when the temporary file
    ///   cannot be made or written, or the descriptor cannot be read.
    public init(reading descriptor: Int32, name: String = "standard input") async throws(BodyError) {
        (path, length) = try await runBlocking { Self.spool(descriptor, name: name) }
    }

    deinit { unlink(path) }

    /// The body to send.
    public var body: RequestBody { .file(path: path) }

    /// Removes the temporary file now.
    public func remove() { unlink(path) }

    private static func spool(_ input: Int32, name: String) -> Result<(String, Int), BodyError> {
        let directory = (getenv("TMPDIR").map { String(cString: $0) }).flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/multiauth-body-XXXXXX").utf8CString)
        let output = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard output >= 0 else { return .failure(.spoolFailed(body: name, reason: String(cString: strerror(errno)))) }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(output) }
        fchmod(output, 0o600)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return .success((path, total)) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                return .failure(.unreadable(body: name, reason: reason))
            }
            guard writeAll(output, buffer, count) else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                return .failure(.spoolFailed(body: name, reason: reason))
            }
            total += count
        }
    }

    private static func writeAll(_ descriptor: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        var offset = 0
        while offset < count {
            let written = buffer.withUnsafeBytes { bytes in bytes.baseAddress.map { write(descriptor, $0 + offset, count - offset) } ?? -1 }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

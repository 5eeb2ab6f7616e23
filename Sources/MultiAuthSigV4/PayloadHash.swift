import MultiAuthCore
import MultiAuthCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stage 1f: the hashed payload, the last line of the canonical request.
public enum PayloadHash {
    /// SHA-256 of the empty string, the payload hash of a request without a body.
    public static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash that leaves the body unsigned.
    public static let unsigned = "UNSIGNED-PAYLOAD"

    /// The payload hash for `payload`.
    static func value(for payload: Payload) throws(SigningError) -> String {
        switch payload {
        case .empty: return emptySHA256
        case .bytes(let bytes): return SHA256Hasher.hash(bytes).hex
        case .sha256(let hex): return try validated(hex)
        case .unsigned: return unsigned
        }
    }

    /// botocore quirk: a caller-supplied `X-Amz-Content-SHA256` header is the payload hash,
    /// whatever the body. It may also carry `UNSIGNED-PAYLOAD` or a `STREAMING-…` marker.
    /// The payload hash of a header signature: the request's own `x-amz-content-sha256`
    /// value (`supplied`) when it has one, else the hash of `payload`.
    static func forHeaderSigning(supplied: String?, payload: Payload) throws(SigningError) -> String {
        guard let supplied else { return try value(for: payload) }
        let trimmed = supplied.trimmingHTTPWhitespace()
        if trimmed == unsigned || trimmed.hasPrefix("STREAMING-") { return trimmed }
        return try validated(trimmed)
    }

    private static func validated(_ hex: String) throws(SigningError) -> String {
        var bytes = hex  // read as one buffer: a walk of the UTF-8 view costs ten times as much
        let isLowerHex = bytes.utf8.count == 64 && bytes.withUTF8 { buffer in
            buffer.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
        }
        guard isLowerHex else { throw .invalidPayloadHash(hex) }
        return hex
    }

    /// Hashes a file in 256 KiB chunks, so a body of any size is never held in memory.
    /// The blocking reads run on a dispatch queue, not on a cooperative thread.
    /// - Throws: ``SigningError/unreadableBody(path:reason:)`` when the file cannot be read.
    public static func sha256(ofFileAt path: String) async throws(SigningError) -> String {
        try await runBlocking { hashFileBlocking(path) }
    }

    static func hashFileBlocking(_ path: String) -> Result<String, SigningError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unreadableBody(path: path, reason: systemError())) }
        defer { close(descriptor) }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadableBody(path: path, reason: systemError()))
            }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return .success(hasher.finalize().hex)
    }

    private static func systemError() -> String {
        errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased()
    }
}

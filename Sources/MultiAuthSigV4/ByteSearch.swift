#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding one byte in a buffer with the C library's `memchr`, which compares many bytes
/// per step: the verifier scans every Authorization value it receives for `,` and `=`.
enum ByteSearch {
    /// The index of the first `byte` in `bytes[range]`, if any.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard let base = bytes.baseAddress, !range.isEmpty else { return nil }
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }
}

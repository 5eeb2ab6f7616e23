#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `-o FILE` without clobbering: when FILE is a regular file or does not exist yet, the body
/// is written to a new file beside it and renamed over it only when the call succeeded (and,
/// with `--fail`, only for a status below 400), so a connection failure, a timeout or an
/// error status leaves FILE as it was. Anything else (`/dev/null`, a FIFO, a symbolic link)
/// is written in place: renaming over it would replace the device or the link itself.
struct OutputFile {
    /// Where the response body is written while the call runs.
    let partialPath: String
    let finalPath: String
    private let inPlace: Bool

    init(_ path: String) {
        finalPath = path
        var info = stat()
        let exists = lstat(path, &info) == 0
        inPlace = exists && (info.st_mode & S_IFMT) != S_IFREG
        guard !inPlace else {
            partialPath = path
            return
        }
        var random: UInt64 = 0
        withUnsafeMutableBytes(of: &random) { _ = getentropy($0.baseAddress, $0.count) }
        partialPath = path + ".multiauth-partial-\(getpid())-\(String(random, radix: 16))"
    }

    /// Writes `bytes` as the body (a body that came back in memory, such as an error's).
    func writeBody(_ bytes: [UInt8]) throws {
        let descriptor = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CLIError("-o", "cannot write '\(finalPath)': \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard FileHandleless.writeAll(bytes, to: descriptor) else {
            throw CLIError("-o", "cannot write '\(finalPath)': \(String(cString: strerror(errno)))")
        }
    }

    /// Puts the body in place.
    func commit() throws {
        guard !inPlace else { return }
        guard rename(partialPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CLIError("-o", "cannot write '\(finalPath)': \(reason)")
        }
    }

    /// Removes the partial body; FILE is untouched.
    func discard() {
        if !inPlace { unlink(partialPath) }
    }
}

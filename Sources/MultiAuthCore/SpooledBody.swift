#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import Synchronization

/// A body read once (from standard input, or as a proxy receives it) into a private temporary
/// file, so it can be hashed, signed and replayed like a file body, with memory flat whatever
/// its size.
///
/// The file is created with mode 0600 in `TMPDIR` (else `/tmp`) and removed by ``remove()``
/// or when the value is released; a failed spool leaves nothing behind.
public final class SpooledBody: Sendable {
    /// The temporary file.
    public let path: String
    /// The number of bytes spooled.
    public let length: Int
    /// The budget the bytes were taken from, given back when the file is removed.
    private let budget: SpoolBudget?
    private let removed = Atomic<Bool>(false)

    private init(path: String, length: Int, budget: SpoolBudget? = nil) {
        self.path = path
        self.length = length
        self.budget = budget
    }

    /// Copies everything `descriptor` yields until its end.
    /// - Throws: ``BodyError/spoolFailed(body:reason:)`` naming `name` when the temporary file
    ///   cannot be made or written, or the descriptor cannot be read.
    public convenience init(reading descriptor: Int32, name: String = "standard input") async throws(BodyError) {
        let (path, length) = try await runBlocking { SpoolFile.copy(descriptor, name: name) }
        self.init(path: path, length: length)
    }

    /// Writes the chunks of `chunks` as they arrive, at most `limit` bytes in all, each byte
    /// taken from `budget` (a server's total spool space) before it is written.
    /// - Throws: ``BodyError/tooLarge(body:limit:)`` past `limit`,
    ///   ``BodyError/spoolFull(body:limit:)`` past the budget,
    ///   ``BodyError/unreadable(body:reason:)`` when `chunks` fails,
    ///   ``BodyError/spoolFailed(body:reason:)`` when the file cannot be made or written.
    public convenience init<Chunks: AsyncSequence>(
        collecting chunks: Chunks, name: String, limit: Int, budget: SpoolBudget? = nil
    ) async throws(BodyError) where Chunks.Element == [UInt8] {
        let file = try await runBlocking { SpoolFile.create(name: name) }
        var total = 0
        do {
            for try await chunk in chunks {
                guard total + chunk.count <= limit else { throw BodyError.tooLarge(body: name, limit: limit) }
                if let budget, !budget.take(chunk.count) { throw BodyError.spoolFull(body: name, limit: budget.capacity) }
                total += chunk.count
                try await runBlocking { file.write(chunk[...], name: name) }
            }
        } catch {
            file.discard()
            budget?.giveBack(total)
            throw error as? BodyError ?? .unreadable(body: name, reason: "\(error)")
        }
        close(file.descriptor)
        self.init(path: file.path, length: total, budget: budget)
    }

    deinit { remove() }

    /// The body to send.
    public var body: OutgoingBody { .file(path: path) }

    /// Removes the temporary file now (once; later calls do nothing).
    public func remove() {
        guard !removed.exchange(true, ordering: .relaxed) else { return }
        unlink(path)
        budget?.giveBack(length)
    }
}

/// An open private temporary file being filled.
private struct SpoolFile: Sendable {
    let descriptor: Int32
    let path: String

    static func create(name: String) -> Result<SpoolFile, BodyError> {
        let directory = (getenv("TMPDIR").map { String(cString: $0) }).flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/multiauth-body-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return .failure(.spoolFailed(body: name, reason: String(cString: strerror(errno)))) }
        fchmod(descriptor, 0o600)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .success(SpoolFile(descriptor: descriptor, path: path))
    }

    /// Copies `input` to a new spool file until its end: the file's path and length.
    static func copy(_ input: Int32, name: String) -> Result<(String, Int), BodyError> {
        let file: SpoolFile
        switch create(name: name) {
        case .success(let created): file = created
        case .failure(let error): return .failure(error)
        }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 {
                close(file.descriptor)
                return .success((file.path, total))
            }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                file.discard()
                return .failure(.unreadable(body: name, reason: reason))
            }
            if case .failure(let error) = file.write(buffer[..<count], name: name) {
                file.discard()
                return .failure(error)
            }
            total += count
        }
    }

    /// Appends `bytes`. On failure the caller discards the file (once: its descriptor
    /// number may be reused as soon as it is closed).
    func write(_ bytes: ArraySlice<UInt8>, name: String) -> Result<Void, BodyError> {
        guard let failure = bytes.withUnsafeBytes({ writeFully(descriptor, $0) }) else { return .success(()) }
        return .failure(.spoolFailed(body: name, reason: String(cString: strerror(failure))))
    }

    func discard() {
        close(descriptor)
        unlink(path)
    }
}


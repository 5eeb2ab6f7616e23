import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a lock file could not be taken.
public struct FileLockError: CodedError, Sendable, Equatable {
    /// The failure with its details.
    package let kind: Kind

    /// The error for `kind`.
    package init(_ kind: Kind) { self.kind = kind }

    /// What failed, as a stable name to switch on (an `ErrorCode`).
    public var code: ErrorCode { kind.code }
    /// What failed and where, in one line; never a secret.
    public var message: String { kind.description }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { kind.underlying }
    public var description: String { message }
}

extension FileLockError {
    /// The lock file could not be opened or locked.
    public static func failed(path: String, reason: String) -> FileLockError {
        FileLockError(.failed(path: path, reason: reason))
    }
    /// Another process (or task) held it longer than the timeout.
    public static func timedOut(path: String, waitedSeconds: Double) -> FileLockError {
        FileLockError(.timedOut(path: path, waitedSeconds: waitedSeconds))
    }
}

extension FileLockError {
    /// Each failure with its details, for matching inside MultiAuth; callers switch on
    /// ``FileLockError/code``.
    package enum Kind: Sendable, Equatable, CustomStringConvertible, ErrorKind {
        case failed(path: String, reason: String)
        case timedOut(path: String, waitedSeconds: Double)

        /// None of these cases keeps another error.
        package var underlying: (any Error & Sendable)? { nil }

        package var description: String {
            switch self {
            case .failed(let path, let reason): "cannot lock \(path): \(reason)"
            case .timedOut(let path, let waited): "\(path) stayed locked by another process for \(waited.secondsText) s"
            }
        }
    }
}

/// An exclusive `flock` on a lock file, the one cross-process lock behind the credential
/// store and the AppSync offline queue. Each acquisition opens its own descriptor, so tasks
/// of one process exclude each other too. Released when dropped.
public struct FileLock: ~Copyable, Sendable {
    private let descriptor: Int32

    private init(holding descriptor: Int32) { self.descriptor = descriptor }

    /// Waits up to `timeout` for the lock, polling every 5 ms. Blocking: call it off
    /// the cooperative pool, or use ``acquire(path:timeout:)``.
    public init(path: String, timeout: Duration) throws(FileLockError) {
        let attempt = try Attempt(path: path)
        var waited = 0.0
        while try !attempt.lock() {
            guard waited < timeout.inSeconds else { throw .timedOut(path: path, waitedSeconds: waited) }
            usleep(5_000)
            waited += 0.005
        }
        self.init(holding: attempt.take())
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock without blocking a thread: non-blocking attempts with ``Backoff``'s waits
    /// between them (2.5 to 10 ms: writers queued on a busy store, eight processes setting at
    /// once, get their turn promptly), so the wait ends at `timeout` or as soon as the calling
    /// task is cancelled (a command's time limit).
    /// The lock is held until the returned value is released or dropped.
    public static func acquire(path: String, timeout: Duration) async throws(FileLockError) -> HeldFileLock {
        let attempt = try Attempt(path: path)
        let start = ContinuousClock.now
        let retry = Backoff(base: .milliseconds(5), cap: .milliseconds(10), maxAttempts: .max)
        var failures = 0
        while try !attempt.lock() {
            failures += 1
            let elapsed = ContinuousClock.now - start
            let waited = elapsed.inSeconds
            guard elapsed < timeout else { throw .timedOut(path: path, waitedSeconds: waited) }
            do { try await retry.wait(after: failures) } catch { throw .timedOut(path: path, waitedSeconds: waited) }
        }
        return HeldFileLock(FileLock(holding: attempt.take()))
    }

    /// The lock file opened once, tried without blocking; closed unless taken.
    private final class Attempt {
        let path: String
        private var descriptor: Int32

        init(path: String) throws(FileLockError) {
            self.path = path
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw .failed(path: path, reason: systemErrorText()) }
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        /// True once the lock is ours; false while another holds it.
        func lock() throws(FileLockError) -> Bool {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR else { throw .failed(path: path, reason: "flock: " + systemErrorText()) }
            return false
        }

        /// The locked descriptor, handed to the ``FileLock`` that releases it.
        func take() -> Int32 {
            defer { descriptor = -1 }
            return descriptor
        }
    }
}

/// A ``FileLock`` that can be passed between tasks and released early.
public final class HeldFileLock: Sendable {
    private let lock: Mutex<FileLock?>

    /// Holds `lock`.
    public init(_ lock: consuming FileLock) { self.lock = Mutex(Optional(lock)) }

    /// True until ``release()``.
    public var isHeld: Bool { lock.withLock { $0 != nil } }

    /// Lets others in.
    public func release() { lock.withLock { $0 = nil } }
}

extension FileLockError.Kind {
    /// `FileLock.` and the case's name, fixed once published.
    package var code: ErrorCode {
        switch self {
        case .failed: "FileLock.failed"
        case .timedOut: "FileLock.timedOut"
        }
    }
}

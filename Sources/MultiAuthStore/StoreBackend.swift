/// Where a store's encrypted image lives: a file on this host, a PostgreSQL row, an AWS
/// secret. A backend keeps bytes it cannot read: ``CredentialStore`` seals the whole item list
/// (AES-256-GCM) before it hands an image over, and checks it when it reads one back.
///
/// Every write names the version it replaces, so no writer overwrites an image it did not
/// read (two hosts writing at once get ``StoreError/conflict(path:)``, never a lost update).
/// A read-modify-write also holds the backend's lock, which on a shared backend excludes
/// every host.
public protocol StoreBackend: Sendable {
    /// Where the store is, for messages: a path, or a URL without its password.
    var location: String { get }

    /// The image and its version, or nil when there is no store.
    func read() async throws(StoreError) -> StoreImage?

    /// Writes a new store's first image; a store already there is left as it is
    /// (``StoreError/storeExists(path:)``).
    func create(_ image: [UInt8]) async throws(StoreError)

    /// Replaces the image that was read at `version`; when another writer replaced it since,
    /// nothing is written (``StoreError/conflict(path:)``).
    func replace(_ image: [UInt8], expecting version: StoreVersion) async throws(StoreError)

    /// Exclusive use of the store until the lock is released: across processes, and across
    /// hosts for a shared backend. Waits at most `timeout` (``StoreError/locked(path:waitedSeconds:)``)
    /// or until the calling task is cancelled.
    func lock(timeout: Duration) async throws(StoreError) -> any StoreBackendLock

    /// The current version without the image (a cheap look), or nil when there is no store.
    func version() async throws(StoreError) -> StoreVersion?

    /// Yields once each time the store may have changed. The default looks at ``version()``
    /// every `interval`; a backend that is told of changes (PostgreSQL's
    /// `LISTEN`/`NOTIFY`) yields at once. A failed look yields nothing: the caller keeps what
    /// it has.
    func changes(pollingEvery interval: Duration) -> AsyncStream<Void>

    /// The name this store's images are bound to (see the extension's default).
    var bindingName: String? { get }

    /// A small companion value kept beside the store under `name` (the KMS-wrapped data key),
    /// or nil when there is none.
    func readAttachment(_ name: String) async throws(StoreError) -> [UInt8]?

    /// Saves a companion value; one already there is never replaced
    /// (``StoreError/storeExists(path:)``): what it opens would be lost.
    func createAttachment(_ name: String, _ bytes: [UInt8]) async throws(StoreError)
}

extension StoreBackend {
    /// The name an image is bound to, inside its encryption: an image read from a store of
    /// another name is refused. Nil (the default) binds nothing: a file may be moved or
    /// copied as its owner likes.
    public var bindingName: String? { nil }
}

/// Which image a backend holds: changes with every write.
public struct StoreVersion: Hashable, Sendable, CustomStringConvertible {
    /// The backend's own token (a row version, a secret's version id, a file's identity).
    public let token: String

    /// A version with the backend's token.
    public init(_ token: String) { self.token = token }

    public var description: String { token }
}

/// An encrypted store image as a backend holds it.
public struct StoreImage: Sendable {
    /// The sealed bytes (see the store format).
    public var bytes: [UInt8]
    /// The version these bytes were read at.
    public var version: StoreVersion

    /// An image read at `version`.
    public init(bytes: [UInt8], version: StoreVersion) {
        self.bytes = bytes
        self.version = version
    }
}

/// A backend's lock, held from ``StoreBackend/lock(timeout:)`` until released (or dropped).
public protocol StoreBackendLock: Sendable {
    /// False once released.
    var isHeld: Bool { get }
    /// Lets other processes and hosts in, and returns once they can come. Calling it again
    /// does nothing. A lock dropped unreleased is released in the background.
    func release() async
}

extension StoreBackend {
    /// Polls ``version()`` every `interval` (``StoreChangePolling``).
    public func changes(pollingEvery interval: Duration) -> AsyncStream<Void> { StoreChangePolling.stream(self, every: interval) }
}

/// The default way to follow a store: look at its version every so often.
public enum StoreChangePolling {
    /// Yields when `backend`'s version differs from the last look, looking every `interval`;
    /// a failed look yields nothing.
    public static func stream(_ backend: any StoreBackend, every interval: Duration) -> AsyncStream<Void> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let poller = Task {
                var last = try? await backend.version()
                while !Task.isCancelled {
                    try? await Task.sleep(for: max(interval, .milliseconds(10)))
                    guard let now = try? await backend.version() else { continue }
                    if now != last { continuation.yield() }
                    last = now
                }
            }
            continuation.onTermination = { _ in poller.cancel() }
        }
    }
}

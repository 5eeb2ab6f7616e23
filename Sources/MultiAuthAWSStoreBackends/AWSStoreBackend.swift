public import Logging
import MultiAuthAWSClient
public import MultiAuthCore
public import MultiAuthCredentials
public import MultiAuthHTTP
public import MultiAuthStore

/// A store kept in AWS Secrets Manager (`secretsmanager://REGION/NAME`: the image in the
/// secret NAME's binary value) or SSM Parameter Store (`ssm://REGION/NAME`: a `SecureString`
/// parameter `/NAME`), called through MultiAuth's signer with the credentials given (a host's
/// role through the default chain), at the endpoint botocore would use
/// (`AWS_ENDPOINT_URL_SECRETS_MANAGER`, `AWS_ENDPOINT_URL_SSM`, `AWS_ENDPOINT_URL`).
///
/// The value is MultiAuth's ciphertext: the service's own encryption comes on top. Every
/// write is conditional on the version read, so two writers never both succeed from one read
/// (the loser gets ``StoreError/conflict(path:)``): Secrets Manager moves the `AWSCURRENT`
/// stage from the version read to the new one, which the service refuses once it has moved;
/// SSM, which has no conditional overwrite, creates each write as a parameter of its own,
/// only if absent. A read-modify-write also holds the store's lock, the item `NAME.lock`,
/// which changes hands by the same conditional writes and expires after ``lockLifetime``
/// so that a holder that died does not keep it. Attachments are items `NAME.ATTACHMENT`.
public struct AWSStoreBackend: StoreBackend {
    /// How long a lock item is honoured after it was taken.
    public static let lockLifetime: Duration = .seconds(60)

    private let items: any AWSItemService
    private let name: String
    private let clock: TimeSource
    private let logger: Logger

    /// The store `url` names (`secretsmanager://REGION/NAME` or `ssm://REGION/NAME`), its calls
    /// signed with `credentials`; `logger` hears of a lock item taken over that was not MultiAuth's.
    /// - Throws: ``StoreError/readFailed(path:reason:)`` for a URL that is not one, or a region
    ///   that is not a region name.
    public init(
        url: String, credentials: any CredentialsProvider, http: any HTTPSender, environment: [String: String]? = nil, clock: TimeSource = .system,
        logger: Logger = .disabled
    ) throws(StoreError) {
        guard let parts = Self.split(url) else {
            throw .readFailed(path: Redaction.url(url), reason: "not a secretsmanager://REGION/NAME or ssm://REGION/NAME URL")
        }
        let isSecretsManager = parts.scheme == "secretsmanager"
        let call: AWSJSONService
        do throws(AWSCallError) {
            let client = try AWSClient(
                service: isSecretsManager ? "secretsmanager" : "ssm", region: parts.region, environment: environment,
                http: http, logger: logger)
            call = AWSJSONService(client: client, targetPrefix: isSecretsManager ? "secretsmanager" : "AmazonSSM", keys: credentials.signingKeys)
        } catch {
            throw .readFailed(path: url, reason: error.reason)
        }
        items = isSecretsManager ? SecretsManagerItems(region: parts.region, call: call) : ParameterStoreItems(region: parts.region, call: call)
        name = parts.name
        self.clock = clock
        self.logger = logger
    }

    /// True for the URL schemes this backend takes.
    public static func isAWS(_ url: String) -> Bool { url.hasPrefix("secretsmanager://") || url.hasPrefix("ssm://") }

    /// Opens `secretsmanager://` and `ssm://` locations, their calls signed with `credentials`
    /// (made only when such a location is opened) and sent through `http`.
    public struct Opener: StoreBackendOpener {
        let credentials: @Sendable () -> any CredentialsProvider
        let http: any HTTPSender
        let logger: Logger

        /// An opener whose stores' calls are signed with what `credentials` makes.
        public init(credentials: @escaping @Sendable () -> any CredentialsProvider, http: any HTTPSender, logger: Logger = .disabled) {
            self.credentials = credentials
            self.http = http
            self.logger = logger
        }

        public func opens(_ location: String) -> Bool { AWSStoreBackend.isAWS(location) }

        public func open(_ location: String, lockTimeout: Duration) throws(StoreError) -> any StoreBackend {
            try AWSStoreBackend(url: location, credentials: credentials(), http: http, logger: logger)
        }
    }

    public var location: String { items.location + name }

    /// The service and the store's name: an image copied from another secret or parameter is refused.
    public var bindingName: String? { items.location.prefix { $0 != ":" } + ":" + name }

    public func read() async throws(StoreError) -> StoreImage? {
        let found: (bytes: [UInt8], version: String)?
        do { found = try await items.value(items.itemName(name, suffix: "")) } catch { throw failure(error, writing: false) }
        return found.map { StoreImage(bytes: $0.bytes, version: StoreVersion($0.version)) }
    }

    public func create(_ image: [UInt8]) async throws(StoreError) {
        let created: String?
        do { created = try await items.create(items.itemName(name, suffix: ""), image) } catch { throw failure(error, writing: true) }
        guard created != nil else { throw .storeExists(path: location) }
    }

    public func replace(_ image: [UInt8], expecting version: StoreVersion) async throws(StoreError) {
        let swapped: String?
        do { swapped = try await items.swap(items.itemName(name, suffix: ""), image, expecting: version.token) } catch {
            throw failure(error, writing: true)
        }
        guard swapped != nil else { throw .conflict(path: location) }
    }

    public func lock(timeout: Duration) async throws(StoreError) -> any StoreBackendLock {
        try await AWSItemLock.acquire(
            items: items, name: items.itemName(name, suffix: "lock"), location: location, lifetime: Self.lockLifetime.inSeconds, timeout: timeout.inSeconds, clock: clock,
            logger: logger)
    }

    public func version() async throws(StoreError) -> StoreVersion? {
        do { return try await items.version(items.itemName(name, suffix: "")).map(StoreVersion.init) } catch {
            throw failure(error, writing: false)
        }
    }

    public func readAttachment(_ attachment: String) async throws(StoreError) -> [UInt8]? {
        do { return try await items.value(items.itemName(name, suffix: attachment))?.bytes } catch { throw failure(error, writing: false) }
    }

    public func createAttachment(_ attachment: String, _ bytes: [UInt8]) async throws(StoreError) {
        let created: String?
        do { created = try await items.create(items.itemName(name, suffix: attachment), bytes) } catch { throw failure(error, writing: true) }
        guard created != nil else { throw .storeExists(path: location + " (\(attachment))") }
    }

    private func failure(_ error: AWSCallError, writing: Bool) -> StoreError {
        let failure: StoreError =
            if error.kind == .malformedAnswer { .corrupted(path: location, reason: error.serviceMessage) } else if writing {
                .writeFailed(path: location, reason: error.reason)
            } else { .readFailed(path: location, reason: error.reason) }
        return StoreError(failure.kind, cause: error)
    }

    private static func split(_ url: String) -> (scheme: String, region: String, name: String)? {
        guard let separator = url.firstRange(of: "://") else { return nil }
        let scheme = String(url[..<separator.lowerBound])
        guard scheme == "secretsmanager" || scheme == "ssm" else { return nil }
        let rest = url[separator.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let region = String(rest[..<slash])
        let name = String(rest[rest.index(after: slash)...]).trimmingSlashes
        guard !region.isEmpty, !name.isEmpty else { return nil }
        return (scheme, region, name)
    }
}

extension String {
    fileprivate var trimmingSlashes: String {
        var text = Substring(self)
        while text.first == "/" { text.removeFirst() }
        while text.last == "/" { text.removeLast() }
        return String(text)
    }
}

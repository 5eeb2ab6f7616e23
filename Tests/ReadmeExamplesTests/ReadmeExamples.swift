import Foundation
import Hummingbird
import MultiAuth
import MultiAuthHummingbird
import MultiAuthOpenAPI
import MultiAuthWebSocket
import Testing

// Every Swift example of README.md and docs/library.md, compiled here as a user would write it against the
// MultiAuth product. Each function holds one README block verbatim (its import lines
// aside); the test below fails when the README and this file drift apart. The functions
// are compiled, not run: they need real AWS endpoints.

func signingExample(key: String, secret: String, token: String?) async throws {
    let credentials = AWSCredentials(accessKeyId: key, secretAccessKey: secret, sessionToken: token)
    let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")

    // Header signing: X-Amz-Date, X-Amz-Security-Token and Authorization are added.
    let request = try HTTPRequest(method: .post, wireURL: "https://abc123.execute-api.us-east-1.amazonaws.com/prod/items",
                                  headerFields: [.contentType: "application/json"])
    let signed = try signer.signHeaders(request, payload: .bytes(Array(#"{"n":1}"#.utf8)), date: .now())
    let wire: HTTPRequest = try signed.signedRequest()   // Authorization and X-Amz-Security-Token marked never-indexed
    print(signed.canonicalRequest, signed.stringToSign, signed.signature, wire.headerFields.count)

    // Presigned URL, valid 1...604800 seconds.
    let url = try signer.presign(try HTTPRequest(method: .get, wireURL: "https://bucket.s3.amazonaws.com/k"),
                                 expires: 300, date: .now()).signedURL
    _ = url
}

func cognitoChallengesExample(store: CredentialStore, cognito: CognitoUserPoolAuthenticator, password: String) async throws {
    // Cognito MFA and remembered devices: an app answers challenges with its own UI.
    struct AppChallengeUI: CognitoChallengeResponder {
        func newPassword(for username: String) async throws(TokenError) -> [UInt8] { Array("N3w-Passw0rd!".utf8) }
        func code(for kind: CognitoMFAKind, destination: String?) async throws(TokenError) -> [UInt8] { Array("123456".utf8) }
        func chooseMFA(from options: [CognitoMFAKind]) async throws(TokenError) -> CognitoMFAKind { options[0] }
        func confirmTOTPSetup(_ setup: CognitoTOTPSetup) async throws(TokenError) -> [UInt8] { Array("123456".utf8) }  // show setup.otpauthURI
        func chooseFirstFactor(from options: [CognitoFirstFactor]) async throws(TokenError) -> CognitoFirstFactor { options[0] }
        func answer(_ challenge: CognitoCustomChallenge) async throws(TokenError) -> [UInt8] { Array("blue".utf8) }
    }
    let devices = StoredCognitoDevices(store: store, configuration: cognito.configuration)
    let signIn = try await cognito.signIn(username: "alice", password: Array(password.utf8), responder: AppChallengeUI(), devices: devices)
    if let offered = signIn.newDevice {   // later sign-ins prove this device (DEVICE_SRP_AUTH) and may skip MFA
        _ = try await cognito.rememberDevice(offered, tokens: signIn.tokens, userId: signIn.userId, name: "my-server", devices: devices)
    }
    // A passkey on a security key (libfido2): later USER_AUTH sign-ins with preferred: .webAuthn answer
    // WEB_AUTHN in the responder's passkeyAssertion(for:) with the same client's authenticate(_:).
    let passkeys = WebAuthnClient(origin: "https://auth.example.com", authenticator: FIDO2Authenticator())
    try await cognito.registerPasskey(tokens: signIn.tokens, client: passkeys)
}

func hummingbirdExample(secret: String) async throws {
    // A Hummingbird service that lets through only signed requests or a known API key.
    // A table of secrets (a verification then never suspends), or `lookup: { keyId in … }`, awaited per request.
    let verifier = SigV4Verifier(region: "us-east-1", service: "execute-api",
                                 credentials: ["AKIDEXAMPLE": VerifierCredential(secretAccessKey: secret)])
    let router = Router(context: MultiAuthContext.self)
    router.add(middleware: InboundAuthorizationMiddleware(InboundAuthorizer(verifier: verifier, apiKeys: ["k-123": "ci"])))
    router.get("/hello") { _, context in "hello \(context.principal?.name ?? "")" }   // the access key id or the key's name
    try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080))).runService()
}

func openAPIExample() throws {
    // A swift-openapi-generator client authorized in any mode: sign with the credential chain…
    let chain = DefaultCredentialsChain.make(http: CurlHTTPClient())
    let signing = AuthorizationMiddleware(IAMAuthorizer(credentials: chain, region: "us-east-1", service: "execute-api"))
    // …or send an API key: AuthorizationMiddleware(APIKeyAuthorizer(key: .fixed(apiKey))).
    // let client = Client(serverURL: URL(string: "https://abc123.execute-api.us-east-1.amazonaws.com/prod")!,
    //                     transport: URLSessionTransport(), middlewares: [signing])
    _ = signing
}

func storeExample(keyPath: String, refreshToken: String, poolId: String) async throws {
    // The credential store (async; file work runs off the cooperative pool).
    let store = CredentialStore(keySource: .keyFile(path: keyPath))   // default path: MULTIAUTH_STORE or $XDG_DATA_HOME/multiauth/credentials.store
    let environment = StoreEnvironment([StoreEnvironment.Field.region: "us-east-1", StoreEnvironment.Field.userPoolId: poolId])
    try await store.set(Array(refreshToken.utf8), service: "cognito", account: "alice", environment: environment)
    let secret = try await store.get(service: "cognito", account: "alice", environment: environment)
    // Different configuration → StoreError.environmentMismatch naming the fields; a damaged file → .corrupted, never overwritten.
    // A read-modify-write that waits on something else in between holds the lock across processes:
    let lease = try await store.lease()
    let current = try await lease.get(service: "cognito", account: "alice", environment: environment)
    try await lease.set(current + Array("-rotated".utf8), service: "cognito", account: "alice", environment: environment)
    await lease.release()
    _ = secret
}

func apiExample() async throws {
    // Calling an API: a credential chain, an authorizer per mode, retries and clock-skew correction.
    var logger = Logger(label: "api")          // debug: stages, re-signing, retries, refreshes; secrets redacted
    logger.logLevel = .debug
    let credentials = DefaultCredentialsChain.make(http: CurlHTTPClient())          // cached, refreshed ahead of expiry
    let client = AuthorizedHTTPClient(
        transport: CurlHTTPClient(),
        authorizer: IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "execute-api", logger: logger),
        logger: logger)
    let items = try HTTPRequest(method: .get, wireURL: "https://abc123.execute-api.us-east-1.amazonaws.com/prod/items")
    let (response, _) = try await client.send(items)
    print(response.status, response.header("content-type") ?? "")
    // A large answer goes to a file (or a descriptor) as it arrives; error bodies stay in memory
    // (16 MiB at most), and a body kept in memory stops at 16 MiB with HTTPTransportError.responseTooLarge.
    let (saved, _) = try await client.send(items, responseBody: .file(path: "items.json"))
    print(saved.streamed)

    // A body says what it is: .bytes, .file(path:) (hashed in chunks, read again on a retry),
    // or .stream (which says whether it can be replayed; one that cannot is sent at most once).
    let s3 = AuthorizedHTTPClient(
        transport: CurlHTTPClient(),
        authorizer: IAMAuthorizer(credentials: credentials, region: "us-east-1", service: "s3",
                                  payloadSigning: .awsChunked(chunkSize: 65_536, mode: .signedChunks)))
    let upload = try HTTPRequest(method: .put, wireURL: "https://bucket.s3.us-east-1.amazonaws.com/big.bin")
    _ = try await s3.send(upload, body: .file(path: "big.bin"))   // aws-chunked, each chunk signed as it is read

    // Other modes: APIKeyAuthorizer(key: .fixed(key)), TokenAuthorizer(token: .token(from: provider)),
    // and CognitoIdentityCredentialsProvider(identityPoolId:region:http:) for identity pools.
}

func tokensExample(store: CredentialStore, clientId: String, password: String) async throws {
    // Tokens: sign in once, keep the login in the store, hand a refreshing provider to an authorizer.
    let cognito = CognitoUserPoolAuthenticator(
        configuration: try CognitoUserPoolConfiguration(userPoolId: "us-east-1_abc", clientId: clientId), http: CurlHTTPClient())
    let tokens = try await cognito.signIn(username: "alice", password: Array(password.utf8), flow: .srp)
    let logins = LoginStore(store: store)
    try await logins.save(LoginRecord(provider: .cognito(cognito.configuration), flow: "srp", tokens: tokens), name: "default")
    let provider = logins.provider(for: try await logins.load(name: "default"), name: "default", http: CurlHTTPClient())
    let api = AuthorizedHTTPClient(transport: CurlHTTPClient(), authorizer: TokenAuthorizer(token: .token(from: provider)))
    // OIDC: try await OpenIDConnectClient.discover(OIDCConfiguration(issuer:clientId:), http:) then
    // .authorizationCode(redirect:present:), .startDeviceAuthorization()/.pollDeviceToken(_:), .clientCredentials().
    _ = api
}

func appSyncExample(provider: any TokenProvider) async throws {
    // AppSync: one client per auth mode from awsconfiguration.json, each with its own SQLite caches.
    let factory = ClientFactory(configuration: try AWSConfiguration.load(path: "awsconfiguration.json"),
                                http: CurlHTTPClient(), tokenProviders: [.amazonCognitoUserPools: provider])
    let mapping = ["public": "Default", "private": "PostApp_AWS_IAM"]
    let privateClient = try factory.client("private", in: mapping)
    let publicClient = try factory.client("public", in: mapping)
    let post = try await publicClient.query("query Get($id: ID!) { getPost(id: $id) { id url } }",
                                            variables: .object(["id": .string("1")]))
    // post.result.data has url = null, post.result.errors says why; privateClient's answer lives in another database.
    _ = (privateClient, post)
}

func realtimeExample(apiKey: String) async throws {
    // Subscriptions: one socket per client, every auth mode, reconnected with fresh authorization.
    let factory = ClientFactory(configuration: try AWSConfiguration.load(path: "awsconfiguration.json"),
                                http: CurlHTTPClient(), webSocket: NIOWebSocketConnector())
    let client = try factory.client(for: .apiKey)
    for try await post in try await client.subscribe("subscription { onCreatePost { id title url } }") {
        print(post.data ?? .null, post.errors)   // url is null for API-key subscribers, and an error says why
    }   // leaving the loop (or cancelling the task) sends `stop`

    // AppSync Events: publish over HTTP, subscribe to a channel or a wildcard.
    let events = EventsClient(endpoint: "https://abc.appsync-api.us-east-1.amazonaws.com/event", mode: .apiKey,
                              authorizer: APIKeyAuthorizer(key: .fixed(apiKey)), transport: CurlHTTPClient(),
                          webSocket: NIOWebSocketConnector())
    _ = try await events.publish(channel: "/default/news", events: [.object(["title": .string("hello")])])
    for try await event in try await events.subscribe(channel: "/default/*") { print(event) }
}

@Suite(.timeLimit(.minutes(5))) struct ReadmeExamplesTests {
    /// The Swift blocks of README.md and docs/library.md, each without its import and `#if`
    /// lines, with indentation and blank lines dropped.
    static func readmeBlocks() throws -> [[String]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try ["README.md", "docs/library.md"].map {
            try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```swift") { current = [] } else if line.hasPrefix("```"), let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("import ") || trimmed.hasPrefix("#") { continue }
                current?.append(trimmed)
            }
        }
        return blocks
    }

    /// The README's manifest lines name a product the package has, and each row of its product
    /// table names a product whose main module has the product's name (issue 46) and whose
    /// other modules are the product's targets.
    @Test func theReadmeNamesRealProductsAndModules() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(readme.contains(#".product(name: "MultiAuthSigV4", package: "multiauth")"#))
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `MultiAuth") }
        #expect(rows.count >= 10)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let product = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let modules = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }
            let library = try #require(
                manifest.split(separator: "\n").first { $0.contains(#".library(name: "\#(product)""#) }, "no product \(product)")
            #expect(modules.first == product, "\(product)'s main module is \(modules.first ?? "missing")")
            for module in modules { #expect(library.contains("\"\(module)\""), "\(module) is not a target of \(product)") }
        }
    }

    @Test func everyReadmeSwiftBlockIsCompiledHere() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let compiled = "\n" + lines.joined(separator: "\n") + "\n"
        // The manifest lines of "Add it to a package" are not code to compile here.
        let blocks = try Self.readmeBlocks().filter { !$0.joined().contains(".package(url:") }
        #expect(blocks.count == 9, "Swift blocks in README.md and docs/library.md: \(blocks.count); add new ones to this file")
        for block in blocks {
            #expect(compiled.contains("\n" + block.joined(separator: "\n") + "\n"), "not compiled here: \(block.first ?? "")")
        }
    }
}

// swift-tools-version:6.1
import PackageDescription

// MULTIAUTH_SYMBOL_GRAPHS (set by scripts/test for DocC) names a folder where each of our
// modules writes its symbol graph as it compiles: ours only, not the dependencies' hundreds.
let symbolGraphs: [SwiftSetting] = Context.environment["MULTIAUTH_SYMBOL_GRAPHS"].map { folder in
    [.unsafeFlags(["-emit-symbol-graph", "-emit-symbol-graph-dir", folder])]
} ?? []
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
] + symbolGraphs
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
/// swift-subprocess's API speaks swift-system's `FilePath`.
let subprocess: [Target.Dependency] = [
    .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
]

// Hummingbird without its default traits: FullFoundation and ConfigurationSupport would link
// all of Foundation into `multiauth-forward`.
let hummingbird: Package.Dependency = .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: [])

let package = Package(
    name: "MultiAuth",
    platforms: [.macOS(.v15)],
    products: [
        // Everything but the SwiftNIO products below.
        .library(name: "MultiAuth", targets: ["MultiAuth"]),
        // Products a user picks by need (the README's product table says which brings what).
        // The signer, presigner, chunked signing and the verifier: swift-http-types, swift-log and libcrypto only.
        .library(name: "MultiAuthSigV4", targets: ["MultiAuthSigV4"]),
        // The AWS credential chain and its providers; sessions cached in the encrypted store.
        .library(name: "MultiAuthCredentials", targets: ["MultiAuthAWSClient", "MultiAuthCredentials", "MultiAuthCachedSessions", "MultiAuthKMSStoreKeys", "MultiAuthAWSStoreBackends"]),
        // Cognito and OIDC sign-in, refresh, and logins saved in the store; passkeys through libfido2 (opened at first use).
        .library(name: "MultiAuthTokens", targets: ["MultiAuthTokens", "MultiAuthLogins", "MultiAuthWebAuthn"]),
        // Roles Anywhere keys kept in a PKCS#11 token (HSM, smart card, SoftHSM): needs p11-kit's header to build.
        .library(name: "MultiAuthPKCS11", targets: ["MultiAuthPKCS11"]),
        // The encrypted credential store.
        .library(name: "MultiAuthStore", targets: ["MultiAuthStore"]),
        // The store kept in PostgreSQL, shared by a fleet (postgres-nio, so SwiftNIO).
        .library(name: "MultiAuthPostgresStore", targets: ["MultiAuthPostgresStore"]),
        // AppSync: the client factory, its SQLite caches (GRDB), real-time and Events.
        .library(name: "MultiAuthAppSync", targets: ["MultiAuthAppSync", "MultiAuthRealtime", "MultiAuthAppSyncEvents"]),
        // The WebSocket for real-time subscriptions, on swift-websocket (SwiftNIO): only users who subscribe build NIO.
        .library(name: "MultiAuthWebSocket", targets: ["MultiAuthWebSocket"]),
        // A container-credentials endpoint and an IMDSv2 emulator serving any credentials provider (Hummingbird).
        .library(name: "MultiAuthCredentialsServer", targets: ["MultiAuthCredentialsServer"]),
        // Hummingbird middleware that verifies SigV4/SigV4a, API keys and JWTs (SwiftNIO underneath).
        .library(name: "MultiAuthHummingbird", targets: ["MultiAuthHummingbird"]),
        // swift-openapi-runtime client middleware: generated clients authorized in every mode.
        .library(name: "MultiAuthOpenAPI", targets: ["MultiAuthOpenAPI"]),
        // An HTTPSender on libcurl (opened at first use): the sender for processes not on SwiftNIO.
        .library(name: "MultiAuthCurl", targets: ["MultiAuthCurl"]),
        // An HTTPSender on AsyncHTTPClient, for processes already on SwiftNIO's event loops.
        .library(name: "MultiAuthAsyncHTTPClient", targets: ["MultiAuthAsyncHTTPClient"]),
        // Test doubles: ScriptedSender, an HTTPSender that answers from a script.
        .library(name: "MultiAuthTesting", targets: ["MultiAuthTesting"]),
        .executable(name: "multiauth", targets: ["multiauth"]),
        .executable(name: "multiauth-server", targets: ["multiauth-server"]),
        .executable(name: "multiauth-forward", targets: ["multiauth-forward"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        hummingbird,
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // Bottom: OpenSSL's libcrypto through a system-library target.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev", "pkg-config"])]
        ),
        // libcurl's headers only: the library is opened on first use (CurlShims), not linked.
        .systemLibrary(
            name: "CLibCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // PKCS#11's types and constants, our own header: modules are opened with dlopen, nothing linked.
        .target(name: "CPKCS11"),
        // libcurl opened with dlopen at the first request, and typed wrappers for its variadic setopt/getinfo.
        .target(name: "CurlShims", dependencies: ["CLibCurl"]),
        // libfido2 opened with dlopen at the first passkey operation, with its types declared here (no -dev package).
        .target(name: "FIDO2Shims"),
        .target(name: "MultiAuthCrypto", dependencies: ["CLibCrypto"], swiftSettings: strict),
        // The shared vocabulary: request bodies, wire URLs, redaction, JSON values, clocks, blocking work.
        .target(name: "MultiAuthCore", dependencies: [httpTypes, logging], swiftSettings: strict),
        .target(name: "MultiAuthSigV4", dependencies: ["MultiAuthCrypto", "MultiAuthCore", httpTypes], swiftSettings: strict),
        .target(name: "MultiAuthSigningVectors", dependencies: ["MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthCore"], swiftSettings: strict),
        // X.509 keys kept in a PKCS#11 token, signing for Roles Anywhere without leaving it.
        .target(name: "MultiAuthPKCS11", dependencies: ["CPKCS11", "MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthCore"], swiftSettings: strict),
        .target(name: "MultiAuthStore", dependencies: ["MultiAuthCrypto", "MultiAuthCore", logging], swiftSettings: strict),
        // The store's image in a PostgreSQL row: versioned writes, advisory locks, LISTEN/NOTIFY.
        .target(
            name: "MultiAuthPostgresStore",
            dependencies: [
                "MultiAuthStore", "MultiAuthCore", logging, .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // JWTs checked as a server checks them (key sets, signatures, claims): no transport, no sign-in.
        .target(name: "MultiAuthJSONWebTokens", dependencies: ["MultiAuthCrypto", "MultiAuthCore"], swiftSettings: strict),
        .target(
            name: "MultiAuthTokens",
            dependencies: ["MultiAuthAWSClient", "MultiAuthJSONWebTokens", "MultiAuthWebAuthn", "MultiAuthCrypto", "MultiAuthCore", "MultiAuthHTTP", httpTypes, logging],
            swiftSettings: strict),
        // Passkeys: WebAuthn's browser-side checks and client data, authenticators through libfido2.
        .target(name: "MultiAuthWebAuthn", dependencies: ["FIDO2Shims", "MultiAuthCrypto", "MultiAuthCore"], swiftSettings: strict),
        // Saved logins: the token providers' results kept in the credential store.
        .target(
            name: "MultiAuthLogins", dependencies: ["MultiAuthTokens", "MultiAuthStore", "MultiAuthHTTP", "MultiAuthCrypto", "MultiAuthCore", logging],
            swiftSettings: strict),
        .target(
            name: "MultiAuthAuthorization",
            dependencies: [
                "MultiAuthAWSClient", "MultiAuthSigV4", "MultiAuthTokens", "MultiAuthHTTP", "MultiAuthCredentials", "MultiAuthCore", httpTypes, logging,
            ],
            swiftSettings: strict),
        // AppSync's real-time protocols (GraphQL subscriptions, Events channels) over any WebSocket.
        .target(
            name: "MultiAuthRealtime", dependencies: ["MultiAuthAuthorization", "MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthCore", httpTypes, logging],
            swiftSettings: strict),
        // AppSync Events: publish over HTTP, subscribe to channels over the Events WebSocket.
        .target(
            name: "MultiAuthAppSyncEvents", dependencies: ["MultiAuthRealtime", "MultiAuthAuthorization", "MultiAuthAWSClient", "MultiAuthHTTP", "MultiAuthCore", httpTypes, logging],
            swiftSettings: strict),
        // A Realtime WebSocketConnector on swift-websocket's client (SwiftNIO).
        .target(
            name: "MultiAuthWebSocket",
            dependencies: [
                "MultiAuthRealtime", httpTypes, logging, .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Server side: whether a received request may pass (SigV4/SigV4a, API keys, JWTs), as API Gateway decides.
        .target(
            name: "MultiAuthInboundAuthorization", dependencies: ["MultiAuthSigV4", "MultiAuthJSONWebTokens", "MultiAuthCrypto", "MultiAuthCore", httpTypes],
            swiftSettings: strict),
        .target(
            name: "MultiAuthHummingbird",
            dependencies: [
                "MultiAuthInboundAuthorization", logging, .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            swiftSettings: strict),
        .target(
            name: "MultiAuthOpenAPI",
            dependencies: ["MultiAuthAuthorization", "MultiAuthSigV4", "MultiAuthCore", httpTypes, .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            swiftSettings: strict),
        // Request bodies (files, streams) read as NIO ByteBuffers in chunks, off the cooperative pool.
        .target(
            name: "MultiAuthNIOBodies",
            dependencies: [
                "MultiAuthHTTP", "MultiAuthCore", httpTypes, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .target(
            name: "MultiAuthAsyncHTTPClient",
            dependencies: [
                "MultiAuthNIOBodies", "MultiAuthHTTP", "MultiAuthCore", httpTypes, logging,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // An API Gateway definition as the gateway serves it: routes and their lookup, schemes, integrations, usage plans.
        .target(name: "MultiAuthAPIDefinition", dependencies: ["MultiAuthCore", httpTypes], swiftSettings: strict),
        // Reading definitions from OpenAPI documents and usage plans from JSON or YAML: OpenAPIKit
        // and Yams link all of Foundation, so only `multiauth-server` has it.
        .target(
            name: "MultiAuthAPIDefinitionLoader",
            dependencies: [
                "MultiAuthAPIDefinition", "MultiAuthCore", httpTypes, .product(name: "OpenAPIKit30", package: "OpenAPIKit"), .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict),
        // The verifying gateway and the signing proxy: one SwiftNIO pipeline that decides and forwards every request.
        .target(
            name: "MultiAuthReverseProxy",
            dependencies: [
                "MultiAuthCrypto", "MultiAuthAWSClient", "MultiAuthInboundAuthorization", "MultiAuthAuthorization", "MultiAuthServerGuards", "MultiAuthHTTP", "MultiAuthSigV4", "MultiAuthCore", "MultiAuthNIOBodies",
                "MultiAuthAPIDefinition", "MultiAuthJSONWebTokens",
                httpTypes, logging,
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // `multiauth mcp-proxy`: MCP over stdio carried to a streamable HTTP server, each call authorized.
        .target(
            name: "MultiAuthMCPBridge",
            dependencies: ["MultiAuthAuthorization", "MultiAuthHTTP", "MultiAuthCore", "MultiAuthCrypto", httpTypes, logging],
            swiftSettings: strict),
        // Envoy's ext_authz over gRPC for `multiauth authz --grpc-listen`: the same decision as the
        // HTTP auth service, read from a CheckRequest and answered as a CheckResponse.
        .target(
            name: "MultiAuthExtAuthzGRPC",
            dependencies: [
                "MultiAuthReverseProxy", "MultiAuthInboundAuthorization", "MultiAuthCore", httpTypes, logging,
                .product(name: "GRPCCore", package: "grpc-swift-2"), .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Protos"],
            swiftSettings: strict),
        // Local endpoints that hand a provider's credentials to the SDKs: container credentials and IMDSv2.
        // Channel handlers both local servers put in front of their requests.
        .target(
            name: "MultiAuthServerGuards",
            dependencies: [
                httpTypes, .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strict),
        .target(
            name: "MultiAuthCredentialsServer",
            dependencies: [
                "MultiAuthCredentials", "MultiAuthSigV4", "MultiAuthServerGuards", "MultiAuthCrypto", "MultiAuthCore", "MultiAuthHTTP", httpTypes, logging,
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The transport-neutral HTTP vocabulary every sender shares: HTTPSender, ReceivedResponse, HTTPTransportError.
        .target(name: "MultiAuthHTTP", dependencies: ["MultiAuthCore", httpTypes], swiftSettings: strict),
        // HTTPSender on libcurl (re-exports MultiAuthHTTP).
        .target(name: "MultiAuthCurl", dependencies: ["MultiAuthHTTP", "CLibCurl", "CurlShims", "MultiAuthCore", httpTypes, logging], swiftSettings: strict),
        // The one way every AWS call is made: endpoints, SigV4, botocore's standard retries, clock skew, typed errors.
        .target(name: "MultiAuthAWSClient", dependencies: ["MultiAuthSigV4", "MultiAuthHTTP", "MultiAuthCore", httpTypes, logging], swiftSettings: strict),
        // Test doubles for code that sends: a scripted HTTPSender (a product, for users' tests too).
        .target(name: "MultiAuthTesting", dependencies: ["MultiAuthHTTP", "MultiAuthCore", httpTypes], swiftSettings: strict),
        .target(
            name: "MultiAuthCredentials",
            dependencies: ["MultiAuthCrypto", "MultiAuthAWSClient", "MultiAuthSigV4", "MultiAuthHTTP", "MultiAuthCore", httpTypes, logging] + subprocess,
            swiftSettings: strict
        ),
        // Sessions a profile obtained (AssumeRole, GetSessionToken, SSO) kept in the encrypted store.
        .target(
            name: "MultiAuthCachedSessions", dependencies: ["MultiAuthSigV4", "MultiAuthCredentials", "MultiAuthStore", "MultiAuthCrypto", "MultiAuthCore", logging],
            swiftSettings: strict),
        // The store's key made and unwrapped by AWS KMS (GenerateDataKey, Decrypt).
        .target(
            name: "MultiAuthKMSStoreKeys", dependencies: ["MultiAuthAWSClient", "MultiAuthStore", "MultiAuthCredentials", "MultiAuthHTTP", "MultiAuthCrypto", "MultiAuthCore"],
            swiftSettings: strict),
        // The store kept in AWS Secrets Manager or SSM Parameter Store, through our own signer.
        .target(
            name: "MultiAuthAWSStoreBackends", dependencies: ["MultiAuthAWSClient", "MultiAuthStore", "MultiAuthCredentials", "MultiAuthHTTP", "MultiAuthCrypto", "MultiAuthCore", logging],
            swiftSettings: strict),
        // awsconfiguration.json read and checked: its AppSync entries and sign-in sections.
        .target(
            name: "MultiAuthClientConfiguration",
            dependencies: ["MultiAuthTokens", "MultiAuthCore"],
            swiftSettings: strict),
        // One AppSync client per auth mode from awsconfiguration.json, with its own SQLite caches.
        .target(
            name: "MultiAuthAppSync",
            dependencies: [
                "MultiAuthClientConfiguration", "MultiAuthSigV4", "MultiAuthHTTP", "MultiAuthCredentials", "MultiAuthTokens", "MultiAuthAuthorization", "MultiAuthAWSClient", "MultiAuthRealtime", "MultiAuthCrypto",
                "MultiAuthCore", httpTypes, logging, .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .target(
            name: "MultiAuth",
            dependencies: [
                "MultiAuthClientConfiguration", "MultiAuthAWSClient", "MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthStore", "MultiAuthCurl", "MultiAuthCredentials", "MultiAuthCachedSessions", "MultiAuthKMSStoreKeys", "MultiAuthTokens", "MultiAuthWebAuthn", "MultiAuthAuthorization",
                "MultiAuthAppSync", "MultiAuthRealtime", "MultiAuthAppSyncEvents", "MultiAuthLogins", "MultiAuthInboundAuthorization", "MultiAuthCore", httpTypes, logging,
            ],
            swiftSettings: strict),
        .target(
            name: "MultiAuthCLI",
            dependencies: [
                "MultiAuthCrypto", "MultiAuthSigV4", "MultiAuthPKCS11", "MultiAuthHTTP", "MultiAuthSigningVectors", "MultiAuthStore", "MultiAuthAuthorization", "MultiAuthAWSClient", "MultiAuthCredentials", "MultiAuthCachedSessions", "MultiAuthKMSStoreKeys", "MultiAuthCurl",
                "MultiAuthTokens", "MultiAuthLogins", "MultiAuthWebAuthn", "MultiAuthClientConfiguration", "MultiAuthAWSStoreBackends", "MultiAuthCore", "MultiAuthMCPBridge", httpTypes, logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + subprocess,
            swiftSettings: strict
        ),
        // `proxy` and `gateway` without what links all of Foundation (API definitions, usage plans,
        // PostgreSQL stores): the lean `multiauth-forward`, and the shared part of `multiauth-server`.
        .target(
            name: "MultiAuthForwardingCLI",
            dependencies: [
                "MultiAuthCLI", "MultiAuthReverseProxy", "MultiAuthAPIDefinition", "MultiAuthServerGuards", "MultiAuthAsyncHTTPClient", "MultiAuthStore",
                "MultiAuthAWSClient", "MultiAuthAuthorization", "MultiAuthCredentials", "MultiAuthCore", "MultiAuthSigV4", "MultiAuthTokens", "MultiAuthHTTP",
                "MultiAuthInboundAuthorization", "MultiAuthJSONWebTokens", httpTypes, logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
        // The commands that run servers and AppSync clients (NIO, Hummingbird, AsyncHTTPClient,
        // websockets), in an executable of their own so `multiauth` starts without them.
        .target(
            name: "MultiAuthServerCLI",
            dependencies: [
                "MultiAuthForwardingCLI", "MultiAuthCLI", "MultiAuthAPIDefinition", "MultiAuthAPIDefinitionLoader", "MultiAuthPostgresStore", "MultiAuthStore",
                "MultiAuthAppSync", "MultiAuthAppSyncEvents", "MultiAuthRealtime", "MultiAuthWebSocket", "MultiAuthAuthorization", "MultiAuthCredentials",
                "MultiAuthCredentialsServer", "MultiAuthCrypto", "MultiAuthExtAuthzGRPC", "MultiAuthLogins", "MultiAuthReverseProxy", "MultiAuthSigV4",
                "MultiAuthTokens", "MultiAuthCore", httpTypes, logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // Top: the `multiauth` executable is a thin entry point over MultiAuthCLI; it hands the
        // server and AppSync commands to `multiauth-server`, installed beside it.
        .executableTarget(name: "multiauth", dependencies: ["MultiAuthCLI"], swiftSettings: strict),
        .executableTarget(name: "multiauth-server", dependencies: ["MultiAuthServerCLI"], swiftSettings: strict),
        .executableTarget(name: "multiauth-forward", dependencies: ["MultiAuthForwardingCLI"], swiftSettings: strict),
        // libFuzzer target; built only by scripts/fuzz (with -sanitize=fuzzer), never by swift build.
        .executableTarget(
            name: "FuzzParsers",
            dependencies: ["MultiAuthSigV4", "MultiAuthCredentials", "MultiAuthTokens", "MultiAuthCrypto", "MultiAuthCore", "MultiAuthAppSync", "MultiAuthCurl"],
            path: "Fuzz/FuzzParsers",
            swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]
        ),
        // The apps in Examples/, written as a user writes them; ExamplesTests runs them.
        .executableTarget(
            name: "HummingbirdServiceExample",
            dependencies: [
                "MultiAuth", "MultiAuthHummingbird", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            path: "Examples/HummingbirdService"
        ),
        // The generated client's sources are committed (Generated/, from openapi.yaml by
        // swift-openapi-generator), so no build compiles the generator.
        .executableTarget(
            name: "OpenAPIClientExample",
            dependencies: [
                httpTypes, .product(name: "AsyncHTTPClient", package: "async-http-client"), "MultiAuth", "MultiAuthOpenAPI", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            path: "Examples/OpenAPIClient",
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
        // README.md's Swift examples, compiled against the MultiAuth product as a user writes them.
        // (The re-exported modules are listed too only so incremental builds notice their changes.)
        .testTarget(
            name: "ReadmeExamplesTests",
            dependencies: [
                "MultiAuth", "MultiAuthWebSocket", "MultiAuthSigV4", "MultiAuthAuthorization", "MultiAuthCurl", "MultiAuthCredentials", "MultiAuthTokens", "MultiAuthLogins",
                "MultiAuthStore", "MultiAuthAppSync", "MultiAuthRealtime", "MultiAuthAppSyncEvents", "MultiAuthCore", "MultiAuthHummingbird", "MultiAuthOpenAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthRealtimeTests", dependencies: ["MultiAuthRealtime", "MultiAuthAppSync", "MultiAuthAuthorization", "MultiAuthSigV4", "MultiAuthCore", httpTypes, logging],
            swiftSettings: strict),
        // Unit tests of the AWS client: no peers, a scripted sender.
        .testTarget(
            name: "MultiAuthAWSClientTests",
            dependencies: ["MultiAuthAWSClient", "MultiAuthTesting", "MultiAuthHTTP", "MultiAuthCore", "MultiAuthSigV4", httpTypes], swiftSettings: strict),
        // Unit tests of the credential providers: a scripted sender, no peers.
        .testTarget(
            name: "MultiAuthCredentialsTests",
            dependencies: ["MultiAuthCredentials", "MultiAuthAWSClient", "MultiAuthTesting", "MultiAuthHTTP", "MultiAuthCore", "MultiAuthCrypto", "MultiAuthSigV4", httpTypes],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        // Unit tests of Cognito's API calls: a scripted sender, no peers.
        .testTarget(
            name: "MultiAuthTokensTests",
            dependencies: ["MultiAuthTokens", "MultiAuthAWSClient", "MultiAuthTesting", "MultiAuthHTTP", "MultiAuthCore", httpTypes], swiftSettings: strict),
        .testTarget(name: "MultiAuthCoreTests", dependencies: ["MultiAuthCore", httpTypes], swiftSettings: strict),
        .testTarget(name: "MultiAuthCLITests", dependencies: ["MultiAuthCLI"], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthNIOBodiesTests",
            dependencies: ["MultiAuthNIOBodies", httpTypes, .product(name: "NIOHTTP1", package: "swift-nio")], swiftSettings: strict),
        .testTarget(name: "MultiAuthAPIDefinitionTests", dependencies: ["MultiAuthAPIDefinition", "MultiAuthAPIDefinitionLoader", "MultiAuthCore", httpTypes], swiftSettings: strict),
        .testTarget(name: "MultiAuthJSONWebTokensTests", dependencies: ["MultiAuthJSONWebTokens", "MultiAuthCore"], swiftSettings: strict),
        .testTarget(name: "MultiAuthWebAuthnTests", dependencies: ["MultiAuthWebAuthn", "MultiAuthCrypto", "MultiAuthCore"], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthServerGuardsTests",
            dependencies: [
                "MultiAuthServerGuards", httpTypes, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthMCPBridgeTests",
            dependencies: [
                "MultiAuthMCPBridge", "MultiAuthAuthorization", "MultiAuthAWSClient", "MultiAuthHTTP", "MultiAuthCore", "MultiAuthTesting", httpTypes, logging,
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthExtAuthzGRPCTests",
            dependencies: [
                "MultiAuthExtAuthzGRPC", "MultiAuthReverseProxy", "MultiAuthInboundAuthorization", httpTypes, logging,
                .product(name: "GRPCCore", package: "grpc-swift-2"), .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"), .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthReverseProxyTests",
            dependencies: [
                "MultiAuthReverseProxy", "MultiAuthAPIDefinition", "MultiAuthAPIDefinitionLoader", "MultiAuthInboundAuthorization", "MultiAuthTesting", "MultiAuthHTTP", "MultiAuthCore", httpTypes, logging,
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthAuthorizationTests",
            dependencies: ["MultiAuthAuthorization", "MultiAuthAWSClient", "MultiAuthCredentials", "MultiAuthSigV4", "MultiAuthCore", "MultiAuthHTTP", "MultiAuthTesting", httpTypes],
            swiftSettings: strict),
        .testTarget(name: "MultiAuthCurlTests", dependencies: ["MultiAuthCurl", httpTypes], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthCachedSessionsTests",
            dependencies: ["MultiAuthCachedSessions", "MultiAuthCredentials", "MultiAuthStore", "MultiAuthTesting", "MultiAuthSigV4", "MultiAuthCore"],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthLoginsTests",
            dependencies: ["MultiAuthLogins", "MultiAuthTokens", "MultiAuthStore", "MultiAuthTesting", "MultiAuthCore"], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthKMSStoreKeysTests",
            dependencies: ["MultiAuthKMSStoreKeys", "MultiAuthAWSClient", "MultiAuthCredentials", "MultiAuthStore", "MultiAuthTesting", "MultiAuthSigV4", "MultiAuthCore", httpTypes],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthAWSStoreBackendsTests",
            dependencies: ["MultiAuthAWSStoreBackends", "MultiAuthCredentials", "MultiAuthStore", "MultiAuthTesting", "MultiAuthSigV4", "MultiAuthCore", httpTypes],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthInboundAuthorizationTests",
            dependencies: ["MultiAuthInboundAuthorization", "MultiAuthJSONWebTokens", "MultiAuthSigV4", "MultiAuthCore", httpTypes],
            swiftSettings: strict),
        .testTarget(
            name: "MultiAuthAppSyncTests",
            dependencies: [
                "MultiAuthAppSync", "MultiAuthClientConfiguration", "MultiAuthCredentials", "MultiAuthTokens", "MultiAuthTesting", "MultiAuthSigV4",
                "MultiAuthCore", httpTypes,
            ],
            swiftSettings: strict),
        .testTarget(name: "MultiAuthCryptoTests", dependencies: ["MultiAuthCrypto", "CLibCrypto"], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthStoreTests", dependencies: ["MultiAuthStore", "MultiAuthCrypto", "MultiAuthTesting"], swiftSettings: strict),
        .testTarget(
            name: "MultiAuthPostgresStoreTests",
            dependencies: ["MultiAuthPostgresStore", logging, .product(name: "PostgresNIO", package: "postgres-nio")], swiftSettings: strict),
        .testTarget(name: "MultiAuthPKCS11Tests", dependencies: ["MultiAuthPKCS11", "CPKCS11", "MultiAuthSigV4"], swiftSettings: strict),
        .testTarget(name: "MultiAuthSigV4Tests", dependencies: ["MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthCore", httpTypes], swiftSettings: strict),
        // What the suites that run the executables and peers share: the child-process runner,
        // the peers' addresses, scratch folders, the gateway process, the CLI runner.
        .target(
            name: "IntegrationSupport",
            dependencies: ["MultiAuthCore", "MultiAuthCurl", httpTypes],
            path: "Tests/IntegrationSupport",
            swiftSettings: strict),
        // End to end, split by what they integrate (each under 120 tests).
        // The proxy, the gateway and its API definitions, the credential servers, the fleet store.
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "IntegrationSupport", "MultiAuthAuthorization", "MultiAuthCore", "MultiAuthCredentials", "MultiAuthCrypto", "MultiAuthCurl", "MultiAuthHTTP",
                "MultiAuthInboundAuthorization", "MultiAuthPostgresStore", "MultiAuthSigV4", "MultiAuthStore", httpTypes, logging,
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The AWS credential chain against moto, botocore and the SSO, SAML and container peers.
        .testTarget(
            name: "CredentialChainTests",
            dependencies: [
                "IntegrationSupport", "MultiAuthAWSStoreBackends", "MultiAuthAuthorization", "MultiAuthCachedSessions", "MultiAuthCore", "MultiAuthCredentials",
                "MultiAuthCredentialsServer", "MultiAuthCurl", "MultiAuthLogins", "MultiAuthSigV4", "MultiAuthStore", "MultiAuthTokens", "MultiAuthJSONWebTokens", httpTypes,
            ],
            swiftSettings: strict),
        // Clients, senders and tokens: AppSync and realtime, Cognito and OIDC, against their peers and oracles.
        .testTarget(
            name: "ClientAndTokenTests",
            dependencies: [
                "IntegrationSupport", "MultiAuthAWSClient", "MultiAuthAppSync", "MultiAuthAppSyncEvents", "MultiAuthAsyncHTTPClient", "MultiAuthAuthorization",
                "MultiAuthCore", "MultiAuthCredentials", "MultiAuthCrypto", "MultiAuthCurl", "MultiAuthKMSStoreKeys", "MultiAuthLogins", "MultiAuthOpenAPI",
                "MultiAuthRealtime", "MultiAuthSigV4", "MultiAuthStore", "MultiAuthTokens", "MultiAuthWebSocket", httpTypes,
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict),
        // The `multiauth` command line as a user runs it, and the official suites through it.
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "IntegrationSupport", "MultiAuthAppSync", "MultiAuthAuthorization", "MultiAuthCLI", "MultiAuthCore", "MultiAuthCredentials", "MultiAuthCrypto",
                "MultiAuthCurl", "MultiAuthHTTP", "MultiAuthServerCLI", "MultiAuthSigV4", "MultiAuthSigningVectors", "MultiAuthStore", "MultiAuthTokens", httpTypes,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// The benchmark programs (Benchmarks/), declared only for scripts/bench, which sets
// MULTIAUTH_BENCHMARKS: the test build would otherwise compile and link ten programs it never runs.
let benchmarks: [Target] = [
    .executableTarget(
        name: "SigV4Bench",
        dependencies: ["MultiAuthSigV4", "MultiAuthCrypto", "MultiAuthCore", httpTypes],
        path: "Benchmarks/SigV4Bench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "TransportBench",
        dependencies: ["MultiAuthAuthorization", "MultiAuthCredentials", "MultiAuthCurl", "MultiAuthSigV4", "MultiAuthCore", httpTypes],
        path: "Benchmarks/TransportBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "AppSyncBench",
        dependencies: ["MultiAuthAppSync", "MultiAuthAuthorization", "MultiAuthCredentials", "MultiAuthCurl", "MultiAuthCore", "MultiAuthSigV4", "MultiAuthTokens"],
        path: "Benchmarks/AppSyncBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "RealtimeBench",
        dependencies: ["MultiAuthAppSync", "MultiAuthCredentials", "MultiAuthCurl", "MultiAuthRealtime", "MultiAuthWebSocket", "MultiAuthSigV4", "MultiAuthCore", httpTypes],
        path: "Benchmarks/RealtimeBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "UpstreamBench",
        dependencies: [.product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio")],
        path: "Benchmarks/UpstreamBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "PassthroughBench",
        dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        path: "Benchmarks/PassthroughBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "TokenBench",
        dependencies: ["MultiAuthTokens", "MultiAuthLogins", "MultiAuthStore", "MultiAuthCrypto", "MultiAuthCore"],
        path: "Benchmarks/TokenBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "CredentialsBench",
        dependencies: ["MultiAuthCredentials", "MultiAuthCurl"],
        path: "Benchmarks/CredentialsBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "RolesAnywhereBench",
        dependencies: ["MultiAuthSigV4", "MultiAuthPKCS11", "MultiAuthCore", httpTypes],
        path: "Benchmarks/RolesAnywhereBench",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "StoreBench",
        dependencies: ["MultiAuthStore", "MultiAuthPostgresStore", "MultiAuthAWSStoreBackends", "MultiAuthCredentials", "MultiAuthCurl", logging],
        path: "Benchmarks/StoreBench",
        swiftSettings: strict
    ),
]
if Context.environment["MULTIAUTH_BENCHMARKS"] != nil { package.targets += benchmarks }

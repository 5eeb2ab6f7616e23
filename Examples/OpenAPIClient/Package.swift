// swift-tools-version:6.0
import PackageDescription

// A swift-openapi-generator client whose calls MultiAuth authorizes: SigV4 from the AWS
// credential chain, or an API key. It depends on MultiAuth by path, as an app would by URL.
let package = Package(
    name: "OpenAPIClientExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MultiAuth", path: "../.."),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenAPIClientExample",
            dependencies: [
                .product(name: "MultiAuth", package: "MultiAuth"),
                .product(name: "MultiAuthOpenAPI", package: "MultiAuth"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)

// swift-tools-version:6.0
import PackageDescription

// A Hummingbird 2 service behind MultiAuth's verifying middleware: SigV4/SigV4a-signed
// requests and API keys pass, with their principal; everything else gets API Gateway's 403.
let package = Package(
    name: "HummingbirdServiceExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MultiAuth", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdServiceExample",
            dependencies: [
                .product(name: "MultiAuth", package: "MultiAuth"),
                .product(name: "MultiAuthHummingbird", package: "MultiAuth"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        )
    ]
)

// swift-tools-version: 6.1
//
// Comparison benchmarks that need dependencies the main Foyer package must never pull in: grpc-swift 2 and
// SwiftProtobuf. Building this package builds only the small `FoyerBenchKit` library from the main package
// (the shared load, latency recorder and table), never the services.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "FoyerBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "grpc-echo-bench", targets: ["GRPCEchoBench"])
    ],
    dependencies: [
        .package(name: "Foyer", path: ".."),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // The server, client, relay and generated protobuf code, in a library so the tests can reach them.
        .target(
            name: "GRPCEchoBenchKit",
            dependencies: [
                .product(name: "FoyerBenchKit", package: "Foyer"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/GRPCEchoBenchKit",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GRPCEchoBench",
            dependencies: ["GRPCEchoBenchKit", .product(name: "FoyerBenchKit", package: "Foyer")],
            path: "Sources/GRPCEchoBench",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GRPCEchoBenchTests",
            dependencies: [
                "GRPCEchoBenchKit",
                .product(name: "FoyerBenchKit", package: "Foyer"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/GRPCEchoBenchTests",
            swiftSettings: swiftSettings
        ),
    ]
)

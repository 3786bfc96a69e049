// swift-tools-version: 6.1
//
// Foyer: a backend for anonymous-first accounts.
//
// Dependencies point one way: services -> RPC runtime -> wire protocol, LZ4, crypto, storage -> NIOCore
// and the C shims. Each C library has one `.systemLibrary` target and exactly one Swift target that wraps it.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Foyer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FoyerWire", targets: ["FoyerWire"]),
        .library(name: "FoyerRPC", targets: ["FoyerRPC"]),
        .library(name: "FoyerCrypto", targets: ["FoyerCrypto"]),
        .library(name: "FoyerStorage", targets: ["FoyerStorage"]),
        .library(name: "FoyerAPI", targets: ["FoyerAPI"]),
        .executable(name: "foyer-bench", targets: ["FoyerBench"]),
        .executable(name: "foyer-fuzz", targets: ["FoyerFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // MARK: C libraries, each wrapped by exactly one Swift target
        .systemLibrary(
            name: "CFoyerLZ4",
            path: "Shared/CFoyerLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        .systemLibrary(
            name: "CFoyerLibcrypto",
            path: "Shared/CFoyerLibcrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "FoyerLZ4", dependencies: ["CFoyerLZ4"], path: "Shared/FoyerLZ4", swiftSettings: swiftSettings),
        .target(
            name: "FoyerCrypto",
            dependencies: ["CFoyerLibcrypto"],
            path: "Shared/FoyerCrypto",
            swiftSettings: swiftSettings
        ),

        // MARK: Wire protocol, RPC runtime, storage, contracts
        .target(
            name: "FoyerWire",
            dependencies: ["FoyerLZ4", .product(name: "NIOCore", package: "swift-nio")],
            path: "Shared/FoyerWire",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerRPC",
            dependencies: [
                "FoyerWire",
                "FoyerCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/FoyerRPC",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerStorage",
            dependencies: [
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/FoyerStorage",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerAPI",
            dependencies: ["FoyerWire", .product(name: "NIOCore", package: "swift-nio")],
            path: "Shared/FoyerAPI",
            swiftSettings: swiftSettings
        ),

        // MARK: Tools
        .executableTarget(
            name: "FoyerBench",
            dependencies: [
                "FoyerRPC",
                "FoyerAPI",
                "FoyerLZ4",
                "CFoyerLZ4",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/FoyerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FoyerFuzz",
            dependencies: ["FoyerWire", "FoyerAPI", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tools/FoyerFuzz",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "FoyerTestSupport",
            dependencies: [
                "FoyerRPC",
                "FoyerWire",
                "FoyerCrypto",
                "FoyerStorage",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/FoyerTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FoyerLZ4Tests", dependencies: ["FoyerLZ4"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FoyerCryptoTests",
            dependencies: ["FoyerCrypto"],
            exclude: ["crosscheck.py"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerWireTests",
            dependencies: [
                "FoyerWire",
                "FoyerAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerRPCTests",
            dependencies: [
                "FoyerRPC",
                "FoyerAPI",
                "FoyerTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerStorageTests",
            dependencies: ["FoyerStorage", "FoyerTestSupport", .product(name: "SQLKit", package: "sql-kit")],
            swiftSettings: swiftSettings
        ),
    ]
)

// swift-tools-version: 6.1
//
// Foyer: a backend for anonymous-first accounts.
//
// Dependencies point one way: services -> RPC runtime -> wire protocol, LZ4, crypto, storage -> NIOCore
// and the C shims. Each C library has one `.systemLibrary` target and exactly one Swift target that wraps it.
// FoyerClient's dependency closure holds no system library (it must build for iOS): LZ4 in Swift, SHA-256 and
// HMAC from swift-crypto, random bytes from the standard library; the services add liblz4 and libcrypto
// (FoyerDeploymentTests checks it).
// Platforms: iOS 16 is what an app needs to build FoyerClient's closure, which uses no `Synchronization` (locks
// and atomics from NIOConcurrencyHelpers and swift-atomics; FoyerDeploymentTests checks it). The services use
// `Synchronization.Mutex` and need macOS 15; `platforms` is per package, so a macOS app needs macOS 15 as well.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Products many targets use.
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let sqlKit: Target.Dependency = .product(name: "SQLKit", package: "sql-kit")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let histogram: Target.Dependency = .product(name: "Histogram", package: "hdrhistogram-swift")
let swiftCrypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let coreMetrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")

/// What a service that keeps a store and answers RPC needs; its tests add the service and FoyerTestSupport.
let storeService: [Target.Dependency] = [
    "FoyerRPC", "FoyerWire", "FoyerAPI", "FoyerCrypto", "FoyerStorage", sqlKit, nioCore, logging, coreMetrics,
]

/// A service's small executable: its library, the shared service kit and the command line.
func serviceExecutable(
    _ name: String,
    library: String,
    path: String,
    adding extra: [Target.Dependency] = []
) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.target(name: library), "FoyerServiceKit", "FoyerRPC", "FoyerStorage", argumentParser] + extra,
        path: path,
        swiftSettings: swiftSettings
    )
}

let package = Package(
    name: "Foyer",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .library(name: "FoyerWire", targets: ["FoyerWire"]),
        .library(name: "FoyerRPC", targets: ["FoyerRPC"]),
        .library(name: "FoyerCrypto", targets: ["FoyerCrypto"]),
        .library(name: "FoyerStorage", targets: ["FoyerStorage"]),
        .library(name: "FoyerAPI", targets: ["FoyerAPI"]),
        .executable(name: "identity", targets: ["IdentityMain"]),
        .executable(name: "guest-quota", targets: ["GuestQuotaMain"]),
        .executable(name: "user-data", targets: ["UserDataMain"]),
        .executable(name: "cleanup", targets: ["CleanupMain"]),
        .executable(name: "gateway", targets: ["GatewayMain"]),
        .executable(name: "foyer", targets: ["FoyerCLI"]),
        .library(name: "FoyerClient", targets: ["FoyerClient"]),
        .executable(name: "foyer-bench", targets: ["FoyerBench"]),
        // The load, latency recorder and table shared with the gRPC comparison in Benchmarks/.
        .library(name: "FoyerBenchKit", targets: ["FoyerBenchKit"]),
        .executable(name: "foyer-fuzz", targets: ["FoyerFuzz"]),
        .executable(name: "foyer-soak", targets: ["FoyerSoak"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // TLS: the RPC runtime's listeners and clients, identity's SMTP mailer (STARTTLS and implicit TLS).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // SHA-256, HMAC-SHA256 for the RPC handshake and the client (no system library; CryptoKit on Apple platforms).
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // Atomics for the RPC runtime, which FoyerClient builds on iOS 16 (where `Synchronization.Atomic` is missing).
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        // The gateway's HTTP/JSON edge (FoyerGatewayHTTP and the gateway executable only).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The HTTP parts Hummingbird's channel carries, for the edge's own handler in it (Hummingbird depends on it).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Metrics: the API every target records through (CoreMetrics), and the Prometheus registry the services'
        // `/metrics` endpoints render (FoyerServiceKit only).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Traces: the API the RPC runtime and the gateway's HTTP edge trace through (already in the graph through
        // Hummingbird), and the OpenTelemetry tracer the services export with over OTLP/HTTP (FoyerServiceKit only;
        // the OTLPHTTP trait alone, so gRPC is not built).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.2"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // MARK: C libraries, each wrapped by exactly one Swift target
        .systemLibrary(
            name: "CFoyerLZ4",
            path: "Shared/CFoyerLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // The reference Argon2 (RFC 9106) for password hashing: libcrypto has it only from OpenSSL 3.2.
        .systemLibrary(
            name: "CFoyerArgon2",
            path: "Shared/CFoyerArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        // SQLite for the services' embedded engine: FoyerStorage's own connection (each on a thread of its own, a
        // transaction's statements run there as plain calls, not handed to another thread and back each).
        .systemLibrary(
            name: "CFoyerSQLite",
            path: "Shared/CFoyerSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CFoyerLibcrypto",
            path: "Shared/CFoyerLibcrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // liblz4 as the wire codec's `LZ4BlockCodec.liblz4`, for the services.
        .target(
            name: "FoyerLZ4",
            dependencies: ["CFoyerLZ4", "FoyerWire"],
            path: "Shared/FoyerLZ4",
            swiftSettings: swiftSettings
        ),
        // LZ4 blocks in Swift alone (no C library, no other module), interchangeable with liblz4's: the wire
        // codec's default (`LZ4BlockCodec.swift`).
        .target(name: "FoyerSwiftLZ4", path: "Shared/FoyerSwiftLZ4", swiftSettings: swiftSettings),
        // Unpadded base64url in Swift alone, for the client and the RPC runtime; FoyerCrypto wraps it.
        .target(name: "FoyerBase64URL", path: "Shared/FoyerBase64URL", swiftSettings: swiftSettings),
        .target(
            name: "FoyerCrypto",
            dependencies: ["CFoyerArgon2", "CFoyerLibcrypto", "FoyerBase64URL"],
            path: "Shared/FoyerCrypto",
            swiftSettings: swiftSettings
        ),

        // JSON values and RFC 3339 times as the gateway's HTTP edge writes them, shared with FoyerClient's HTTP
        // transport: Foundation only (no NIO, no C library), so it builds wherever FoyerClient does.
        .target(name: "FoyerJSON", path: "Shared/FoyerJSON", swiftSettings: swiftSettings),

        // MARK: Wire protocol, RPC runtime, storage, contracts
        .target(
            name: "FoyerWire",
            dependencies: ["FoyerSwiftLZ4", nioCore],
            path: "Shared/FoyerWire",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerRPC",
            dependencies: [
                "FoyerWire",
                "FoyerBase64URL",
                swiftCrypto,
                nioCore,
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
                nioPosix,
                logging,
                serviceLifecycle,
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                coreMetrics,
                tracing,
            ],
            path: "Shared/FoyerRPC",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerStorage",
            dependencies: [
                "CFoyerSQLite",
                sqlKit,
                .product(name: "PostgresKit", package: "postgres-kit"),
                logging,
                coreMetrics,
            ],
            path: "Shared/FoyerStorage",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerAPI",
            dependencies: ["FoyerWire", nioCore],
            path: "Shared/FoyerAPI",
            swiftSettings: swiftSettings
        ),

        // MARK: Service kit: configuration, logging, lifecycle shared by every executable
        .target(
            name: "FoyerServiceKit",
            dependencies: [
                "FoyerAPI",
                "FoyerLifecycle",
                "FoyerRPC",
                "FoyerWebhooks",
                "FoyerLZ4",
                "FoyerStorage",
                sqlKit,
                argumentParser,
                logging,
                serviceLifecycle,
                nioCore,
                nioPosix,
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                coreMetrics,
                .product(name: "Prometheus", package: "swift-prometheus"),
                tracing,
                .product(name: "OTel", package: "swift-otel"),
            ],
            path: "Shared/FoyerServiceKit",
            swiftSettings: swiftSettings
        ),

        // MARK: Services: a library (store, handlers, build function) and a small executable each
        .target(
            name: "FoyerIdentity",
            dependencies: storeService + [
                // FoyerLifecycle for the account state machine (AccountPhase) and the test-only fault points.
                // swift-crypto for the ES256 client secret of Sign in with Apple (its PKCS #8 .p8 key file).
                "FoyerAccessTokens", "FoyerLifecycle", "FoyerWebhooks", serviceLifecycle, nioPosix, swiftCrypto,
                .product(name: "NIOTLS", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Services/Identity/Library",
            swiftSettings: swiftSettings
        ),
        serviceExecutable(
            "IdentityMain",
            library: "FoyerIdentity",
            path: "Services/Identity/Executable",
            adding: ["FoyerWebhooks", "FoyerCrypto"]
        ),
        .target(
            name: "FoyerGuestQuota",
            dependencies: storeService + ["FoyerServiceKit", serviceLifecycle],
            path: "Services/GuestQuota/Library",
            swiftSettings: swiftSettings
        ),
        serviceExecutable("GuestQuotaMain", library: "FoyerGuestQuota", path: "Services/GuestQuota/Executable"),
        .target(
            name: "FoyerUserData",
            dependencies: storeService + ["FoyerServiceKit"],
            path: "Services/UserData/Library",
            swiftSettings: swiftSettings
        ),
        serviceExecutable("UserDataMain", library: "FoyerUserData", path: "Services/UserData/Executable"),

        // MARK: Shared by services: access-token checks (identity, gateway), account operations (gateway, cleanup)
        .target(
            name: "FoyerAccessTokens",
            dependencies: ["FoyerAPI", "FoyerCrypto", "FoyerRPC"],
            path: "Shared/FoyerAccessTokens",
            swiftSettings: swiftSettings
        ),
        // Signed HTTP calls to an app (events, the mail webhook, merge and delete hooks) and the HTTP client under them.
        .target(
            name: "FoyerWebhooks",
            dependencies: ["FoyerCrypto"],
            path: "Shared/FoyerWebhooks",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerLifecycle",
            dependencies: ["FoyerAPI", "FoyerRPC", "FoyerWire", "FoyerWebhooks", "FoyerJSON", logging, coreMetrics],
            path: "Shared/FoyerLifecycle",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerGateway",
            dependencies: [
                "FoyerAccessTokens",
                "FoyerLifecycle",
                "FoyerWebhooks",
                "FoyerAPI",
                "FoyerCrypto",
                "FoyerRPC",
                "FoyerWire",
                nioCore,
                logging,
                coreMetrics,
                serviceLifecycle,
            ],
            path: "Services/Gateway/Library",
            swiftSettings: swiftSettings
        ),
        // The HTTP/JSON listener beside the binary one: every operation dispatches to the gateway's RPC router.
        .target(
            name: "FoyerGatewayHTTP",
            dependencies: [
                "FoyerGateway",
                "FoyerAPI",
                "FoyerCrypto",
                "FoyerJSON",
                "FoyerRPC",
                "FoyerWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                nioCore,
                logging,
                coreMetrics,
                tracing,
                serviceLifecycle,
            ],
            path: "Services/Gateway/HTTP",
            // The operators' console, compiled in (AdminConsole.swift).
            resources: [
                .embedInCode("Console/index.html"), .embedInCode("Console/console.css"),
                .embedInCode("Console/console.js"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GatewayMain",
            dependencies: [
                "FoyerGateway", "FoyerGatewayHTTP", "FoyerAccessTokens", "FoyerServiceKit", "FoyerRPC", "FoyerWebhooks",
                argumentParser,
            ],
            path: "Services/Gateway/Executable",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "FoyerCleanup",
            dependencies: storeService + ["FoyerLifecycle", "FoyerWebhooks", serviceLifecycle],
            path: "Services/Cleanup/Library",
            swiftSettings: swiftSettings
        ),
        serviceExecutable("CleanupMain", library: "FoyerCleanup", path: "Services/Cleanup/Executable"),

        // MARK: The client library, the load-test engine and the `foyer` command line
        .target(
            name: "FoyerClient",
            dependencies: [
                "FoyerAPI",
                "FoyerJSON",
                "FoyerRPC",
                "FoyerWire",
                "FoyerBase64URL",
                swiftCrypto,
                nioCore,
                logging,
            ],
            path: "Shared/FoyerClient",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FoyerLoad",
            dependencies: [
                "FoyerClient",
                "FoyerAPI",
                histogram,
                logging,
            ],
            path: "Shared/FoyerLoad",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FoyerCLI",
            dependencies: [
                "FoyerClient",
                "FoyerBase64URL",
                "FoyerJSON",
                "FoyerLoad",
                "FoyerAPI",
                "FoyerRPC",
                "FoyerWire",
                argumentParser,
                nioCore,
                logging,
            ],
            path: "Tools/FoyerCLI",
            swiftSettings: swiftSettings
        ),

        // MARK: The real stack as child processes (integration tests, end-to-end benchmarks)
        .target(name: "FoyerStackProcesses", path: "Shared/FoyerStackProcesses", swiftSettings: swiftSettings),

        // MARK: Tools
        .target(
            name: "FoyerBenchKit",
            dependencies: [
                nioCore,
                histogram,
            ],
            path: "Tools/FoyerBenchKit",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FoyerBench",
            dependencies: [
                "FoyerBenchKit",
                "FoyerRPC",
                "FoyerAPI",
                "FoyerClient",
                "FoyerCrypto",
                "FoyerStackProcesses",
                "FoyerStorage",
                "FoyerIdentity",
                "FoyerLZ4",
                "FoyerSwiftLZ4",
                "CFoyerLZ4",
                sqlKit,
                nioCore,
                nioPosix,
                logging,
                argumentParser,
            ],
            path: "Tools/FoyerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FoyerFuzz",
            dependencies: [
                "FoyerWire", "FoyerLZ4", "FoyerSwiftLZ4", "FoyerAPI", "FoyerCrypto", "FoyerJSON", "FoyerRPC", nioCore,
            ],
            path: "Tools/FoyerFuzz",
            swiftSettings: swiftSettings
        ),
        // `make soak`: the stack under a mix of load for minutes; the per-minute figures and the verdict apart.
        .target(
            name: "FoyerSoakKit",
            dependencies: ["FoyerLoad"],
            path: "Tools/FoyerSoakKit",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FoyerSoak",
            dependencies: [
                "FoyerSoakKit", "FoyerLoad", "FoyerClient", "FoyerRPC", "FoyerStackProcesses", argumentParser, logging,
            ],
            path: "Tools/FoyerSoak",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "FoyerTestSupport",
            dependencies: [
                "FoyerRPC",
                "FoyerServiceKit",
                "FoyerWire",
                "FoyerCrypto",
                "FoyerStorage",
                sqlKit,
                nioCore,
                nioPosix,
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                logging,
            ],
            path: "Shared/FoyerTestSupport",
            exclude: ["identity_check.py", "smtp_server.py"],
            swiftSettings: swiftSettings
        ),
        // liblz4 directly as well: both codecs are checked against the library's own compressor and decompressor.
        .testTarget(
            name: "FoyerLZ4Tests",
            dependencies: ["FoyerLZ4", "FoyerSwiftLZ4", "CFoyerLZ4"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerCryptoTests",
            dependencies: ["FoyerCrypto", "FoyerTestSupport"],
            exclude: ["crosscheck.py"],
            swiftSettings: swiftSettings
        ),
        // Generated values of every message type of the five operation tables, round-tripped.
        .testTarget(
            name: "FoyerLifecycleTests",
            dependencies: ["FoyerLifecycle", "FoyerAPI"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerAPITests",
            dependencies: ["FoyerAPI", "FoyerWire", "FoyerTestSupport", nioCore],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerWireTests",
            dependencies: [
                "FoyerWire",
                "FoyerLZ4",
                "FoyerAPI",
                nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerRPCTests",
            dependencies: [
                "FoyerRPC",
                "FoyerLZ4",
                "FoyerAPI",
                "FoyerTestSupport",
                nioCore,
                nioPosix,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                logging,
                serviceLifecycle,
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                tracing,
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerStorageTests",
            dependencies: ["FoyerStorage", "FoyerTestSupport", sqlKit, nioCore],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerIdentityTests",
            dependencies: storeService + ["FoyerIdentity", "FoyerTestSupport", "FoyerWebhooks", swiftCrypto],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerGuestQuotaTests",
            dependencies: storeService + ["FoyerGuestQuota", "FoyerTestSupport", serviceLifecycle],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerUserDataTests",
            dependencies: storeService + ["FoyerUserData", "FoyerTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerGatewayTests",
            dependencies: [
                "FoyerAPI", "FoyerWire", "FoyerTestSupport", "FoyerGateway", "FoyerRPC", "FoyerAccessTokens",
                "FoyerCrypto", "FoyerWebhooks", nioCore, nioPosix,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerCleanupTests",
            dependencies: storeService + [
                "FoyerCleanup", "FoyerIdentity", "FoyerGuestQuota", "FoyerUserData", "FoyerLifecycle",
                "FoyerTestSupport",
                serviceLifecycle,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerLoadTests",
            dependencies: ["FoyerLoad", "FoyerClient", histogram],
            swiftSettings: swiftSettings
        ),
        // The soak's verdict and figures; one short real `foyer-soak` run against the built executables.
        .testTarget(
            name: "FoyerSoakTests",
            dependencies: ["FoyerSoakKit", "FoyerLoad", "FoyerStackProcesses"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FoyerClientTests",
            dependencies: storeService + [
                "FoyerClient", "FoyerGateway", "FoyerIdentity", "FoyerGuestQuota", "FoyerUserData", "FoyerCleanup",
                "FoyerTestSupport", "FoyerServiceKit", "FoyerGatewayHTTP", "FoyerJSON", serviceLifecycle, nioPosix,
                .product(name: "NIOEmbedded", package: "swift-nio"), swiftCrypto,
            ],
            swiftSettings: swiftSettings
        ),
        // Checks compose/ without a Docker engine (schema, settings against the executables' --help, Dockerfile), and
        // the start-up files every deployment shares.
        .testTarget(
            name: "FoyerDeploymentTests",
            dependencies: ["FoyerStackProcesses", "FoyerServiceKit", "FoyerRPC", logging],
            swiftSettings: swiftSettings
        ),
        // Starts the five built executables (`swift test` builds them; FOYER_BIN_DIR points elsewhere).
        .testTarget(
            name: "FoyerIntegrationTests",
            dependencies: [
                "FoyerStackProcesses",
                "FoyerClient",
                "FoyerAPI",
                "FoyerJSON",
                "FoyerRPC",
                "FoyerWire",
                "FoyerCrypto",
                "FoyerStorage",
                "FoyerTestSupport",
                sqlKit,
                nioCore,
                logging,
                swiftCrypto,
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

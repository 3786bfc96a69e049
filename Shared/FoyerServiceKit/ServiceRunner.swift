public import FoyerRPC
import FoyerWire
public import Logging
import NIOCore
public import ServiceLifecycle

/// Runs an executable's services until SIGTERM or SIGINT, then shuts them down gracefully (servers drain).
public enum ServiceRunner {
    /// Sets up structured logging for the whole process; call once, first.
    public static func bootstrapLogging(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in StructuredLogHandler(label: label, level: level, format: format) }
    }

    /// Runs `services` in one `ServiceGroup`: SIGTERM and SIGINT start a graceful shutdown, and the call returns
    /// once every service has stopped.
    public static func run(services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Runs `services` as ``run(services:logger:)`` does, then calls `close` (the service's database and clients),
    /// also when the run fails; the run's error wins over the close's.
    public static func run(
        services: [any Service],
        logger: Logger,
        thenClose close: () async throws -> Void
    ) async throws {
        do {
            try await run(services: services, logger: logger)
        } catch {
            try? await close()
            throw error
        }
        try await close()
    }

    /// Calls the built-in `health` method of the server at `host:port` (through `tls` if given); `true` if it answers
    /// "serving".
    public static func checkHealth(
        host: String,
        port: Int,
        service: String,
        secret: ClusterSecret?,
        tls: RPCClientTLS? = nil,
        logger: Logger
    ) async -> Bool {
        var configuration = RPCClientConfiguration(
            host: host,
            port: port,
            serviceName: service,
            peerName: "health-check",
            clusterSecret: secret
        )
        configuration.tls = tls
        configuration.maxAttempts = 1
        configuration.connectionsMax = 1
        let client = RPCClient(configuration: configuration, logger: logger)
        do {
            let health = try await client.call(
                BuiltinMethods.health,
                Empty(),
                options: CallOptions(timeout: .seconds(2))
            )
            await client.shutdown()
            return health.state == .serving
        } catch {
            logger.error("health check failed", metadata: ["error": "\(error)"])
            await client.shutdown()
            return false
        }
    }
}

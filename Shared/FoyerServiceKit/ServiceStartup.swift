public import Foundation
public import FoyerRPC
public import FoyerStorage
public import Logging
import NIOCore
public import NIOSSL
import SQLKit

/// What every executable works out from its options before it builds its service: logging, the listener's
/// configuration (address, cluster secret, drain time), the database.
public struct ServiceStartup: Sendable {
    public let service: String
    public let logger: Logger
    public let host: String
    public let port: Int
    public let dataDirectory: String
    public let clusterSecret: ClusterSecret
    public let database: DatabaseConfiguration
    public let drainSeconds: Int
    /// The listener's connection limits, in all and per source.
    public let connectionLimits: (total: Int, perSource: Int)
    /// The listener's certificate and key (`--tls-certificate`, `--tls-key`); `nil`: plaintext. Other listeners of
    /// the executable (the gateway's HTTP one) build their TLS configuration from it.
    public let tls: TLSSettings?
    /// The RPC listener's TLS context, built from `tls` at start-up (so a bad file stops the start).
    public let tlsContext: NIOSSLContext?
    /// The clock to give the service's configuration (see ``ServiceClock``).
    public let now: @Sendable () -> Date

    /// Bootstraps logging and resolves the common options. `service` is the service's name (`identity`,
    /// `guest-quota`, ...), used for the logger label, the SQLite file name and the handshake.
    public init(service: String, defaultPort: Int, options: ServiceOptions) throws {
        ServiceRunner.bootstrapLogging(level: try options.resolvedLogLevel(), format: try options.resolvedLogFormat())
        self.service = service
        var logger = Logger(label: "foyer.\(service)")
        logger[metadataKey: "service"] = "\(service)"
        self.logger = logger
        self.host = try options.resolvedHost()
        self.port = try options.resolvedPort(default: defaultPort)
        self.dataDirectory = try options.resolvedDataDirectory()
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        self.clusterSecret = try options.loadClusterSecret(logger: logger)
        self.database = try options.resolvedDatabase(service: service)
        self.drainSeconds = try options.resolvedDrainTimeout()
        self.connectionLimits = try options.resolvedConnectionLimits()
        self.tls = try options.resolvedTLS()
        do {
            self.tlsContext = try tls?.makeServerContext()
        } catch let error as RPCError {
            throw ServiceKitError(error.message)
        }
        self.now = try ServiceClock.make()
    }

    /// Creates the service's PostgreSQL schema if it does not exist yet (nothing to do on SQLite).
    public func prepareDatabase() async throws {
        guard case .postgres = database.engine, let schema = database.postgresSchema else { return }
        var withoutSchema = database
        withoutSchema.postgresSchema = nil
        let connection = try await FoyerDatabase.open(withoutSchema, logger: logger)
        do {
            try await connection.withConnection { sql in
                try await sql.raw("CREATE SCHEMA IF NOT EXISTS \(unsafeRaw: "\"\(schema)\"")").run()
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// For a store service (guest-quota, user-data): prepares the database and returns the service's settings at
    /// their defaults on it, with the start-up's clock.
    public func storeConfiguration<Configuration: StoreServiceConfiguration>(
        _ type: Configuration.Type
    ) async throws -> Configuration {
        try await prepareDatabase()
        var configuration = Configuration(database: database)
        configuration.now = now
        return configuration
    }

    /// The RPC listener of an internal service: cluster-secret authentication required.
    public func serverConfiguration() -> RPCServerConfiguration {
        var configuration = RPCServerConfiguration(serviceName: service, clusterSecret: clusterSecret)
        configuration.host = host
        configuration.port = port
        configuration.drainTimeout = .seconds(Int64(drainSeconds))
        configuration.maxConnections = connectionLimits.total
        configuration.maxConnectionsPerSource = connectionLimits.perSource
        configuration.tls = tlsContext
        return configuration
    }

    /// A client of another service of the cluster.
    public func clientConfiguration(service upstream: String, address: String) throws -> RPCClientConfiguration {
        let (host, port) = try Self.parseAddress(address)
        return RPCClientConfiguration(
            host: host,
            port: port,
            serviceName: upstream,
            peerName: service,
            clusterSecret: clusterSecret
        )
    }

    /// Parses `HOST:PORT` (IPv6 hosts in brackets: `[::1]:7401`).
    public static func parseAddress(_ address: String) throws -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (1...65535).contains(port)
        else { throw ServiceKitError("'\(address)' is not HOST:PORT") }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ServiceKitError("'\(address)' has no host") }
        return (host, port)
    }

    /// TLS for asking this instance about its health: on when the listener has it, without verifying the
    /// certificate (the instance is on this host, and it is asked nothing secret).
    public var healthCheckTLS: RPCClientTLS? {
        tls.map { _ in RPCClientTLS(trustRoots: .anyCertificate) }
    }

    /// For `--check-health`: asks the running instance at host:port whether it serves.
    public func checkHealth() async -> Bool {
        let target = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        return await ServiceRunner.checkHealth(
            host: target,
            port: port,
            service: service,
            secret: clusterSecret,
            tls: healthCheckTLS,
            logger: logger
        )
    }
}

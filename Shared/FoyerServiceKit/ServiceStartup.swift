import CoreMetrics
public import Foundation
import FoyerAPI
import FoyerLZ4
public import FoyerRPC
public import FoyerStorage
public import Logging
import NIOCore
import NIOSSL
import SQLKit
public import ServiceLifecycle
import Tracing

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
    public let connectionLimits: (total: Int, perSource: Int, perNetwork: Int)
    /// The listener's certificate and key (`--tls-certificate`, `--tls-key`), and as `clientCAPath` the cluster CA
    /// (`--tls-ca`) unless the listener is client-facing; `nil`: plaintext. Other listeners of the executable (the
    /// gateway's HTTP one) build their TLS configuration from it.
    public let tls: TLSSettings?
    /// The RPC listener's TLS context, built from `tls` at start-up (so a bad file stops the start) and reloaded on
    /// SIGHUP (see ``withCertificateReload(_:also:)``).
    public let tlsContext: ReloadableTLSContext?
    /// How upstreams are dialled: with `--tls-ca`, TLS verified against that CA, presenting the listener's
    /// certificate and key as client certificate; `nil` (no `--tls-ca`): plaintext.
    public let upstreamTLS: RPCClientTLS?
    /// The clock to give the service's configuration (see ``ServiceClock``).
    public let now: @Sendable () -> Date
    /// Whether the service faces apps (the gateway): its listener asks for no client certificate and does not
    /// continue its callers' trace contexts.
    public let clientFacing: Bool
    /// The Prometheus endpoint (`--metrics-port`) serving the process's metrics; `nil` without the option. Added to
    /// the process's services by ``withTelemetry(_:)``.
    public let metricsServer: MetricsServer?
    /// The service exporting the process's spans (`--otlp-endpoint`, ``TraceExport``); `nil` without the option, and
    /// then the process's tracer is swift-distributed-tracing's no-op one. Added by ``withTelemetry(_:)``.
    public let traceExporter: (any Service)?

    /// Bootstraps logging (and, with `--metrics-port`, the metrics system; with `--otlp-endpoint`, the tracer) and
    /// resolves the common options.
    /// `service` is the service's name (`identity`, `guest-quota`, ...), used for the logger label, the SQLite file
    /// name and the handshake. A `clientFacing` service (the gateway) serves apps, which have no client certificate:
    /// its listeners ask for none, and `--tls-ca` serves only to dial its upstreams.
    public init(service: String, defaultPort: Int, options: ServiceOptions, clientFacing: Bool = false) throws {
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
        let resolved = try options.resolvedTLS()
        var tls = resolved
        if clientFacing { tls?.clientCAPath = nil }
        self.clientFacing = clientFacing
        self.tls = tls
        do {
            self.tlsContext = try tls?.makeServerContext()
            self.upstreamTLS = try resolved.flatMap(Self.upstreamTLS)
        } catch let error as RPCError {
            throw ServiceKitError(error.message)
        }
        self.now = try ServiceClock.make()
        if let metricsPort = try options.resolvedMetricsPort() {
            let registry = MetricsRegistry()
            registry.bootstrap()
            self.metricsServer = MetricsServer(
                configuration: .init(host: host, port: metricsPort),
                registry: registry,
                logger: logger
            )
        } else {
            self.metricsServer = nil
        }
        self.traceExporter = try options.resolvedTraceExport().map {
            try TraceExport.bootstrap(service: service, settings: $0, logger: logger)
        }
    }

    /// The RPC runtime's metrics: into the process's metrics system (bootstrapped with `--metrics-port`), every
    /// status by its name in Foyer's table (`quota-exceeded`, not its number).
    private static var rpcMetrics: RPCMetrics {
        RPCMetrics(factory: MetricsSystem.factory, statusName: FoyerStatusNames.name(of:))
    }

    /// The RPC runtime's tracing: the process's tracer (off unless `--otlp-endpoint` bootstrapped one), statuses by
    /// their names as in the metrics.
    private static var rpcTracing: RPCTracing {
        RPCTracing(tracer: InstrumentationSystem.tracer, statusName: FoyerStatusNames.name(of:))
    }

    /// `services` and, with `--metrics-port`, the metrics endpoint; with `--otlp-endpoint`, the trace exporter first,
    /// so that it stops last on a graceful shutdown and sends the spans the others recorded while they drained.
    public func withTelemetry(_ services: [any Service]) -> [any Service] {
        (traceExporter.map { [$0] } ?? []) + services + (metricsServer.map { [$0] } ?? [])
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
        configuration.maxConnectionsPerNetwork = connectionLimits.perNetwork
        configuration.tls = tlsContext
        configuration.compressionCodec = .liblz4
        configuration.metrics = Self.rpcMetrics
        var tracing = Self.rpcTracing
        // Apps' trace contexts are not trusted (`RPCTracing.continuesCallerContext`); the gateway may opt in.
        tracing.continuesCallerContext = !clientFacing
        configuration.tracing = tracing
        return configuration
    }

    /// TLS to upstreams for `--tls-ca`: the CA as trust roots, the listener's certificate and key as client
    /// certificate, in one context reloaded on SIGHUP; `nil` without a CA.
    private static func upstreamTLS(_ settings: TLSSettings) throws -> RPCClientTLS? {
        guard let ca = settings.clientCAPath else { return nil }
        var tls = RPCClientTLS(trustRoots: .caFile(ca), certificate: settings)
        tls.reloadable = try tls.makeReloadableContext()
        return tls
    }

    /// `services` and, when the process has TLS, a ``CertificateReloadService`` that reloads the listener's and the
    /// upstreams' contexts on SIGHUP, then `also` (another listener's certificate: the gateway's HTTP one).
    public func withCertificateReload(
        _ services: [any Service],
        also: [CertificateReloadService.Reloadable] = []
    ) -> [any Service] {
        var reloadables: [CertificateReloadService.Reloadable] = []
        if let tlsContext { reloadables.append(("listener", tlsContext.reload)) }
        if let upstream = upstreamTLS?.reloadable { reloadables.append(("upstreams", upstream.reload)) }
        reloadables += also
        guard !reloadables.isEmpty else { return services }
        return services + [CertificateReloadService(reloadables: reloadables, logger: logger)]
    }

    /// A client of another service of the cluster.
    public func clientConfiguration(service upstream: String, address: String) throws -> RPCClientConfiguration {
        let (host, port) = try Self.parseAddress(address)
        var configuration = RPCClientConfiguration(
            host: host,
            port: port,
            serviceName: upstream,
            peerName: service,
            clusterSecret: clusterSecret
        )
        configuration.tls = upstreamTLS
        configuration.compressionCodec = .liblz4
        configuration.metrics = Self.rpcMetrics
        configuration.tracing = Self.rpcTracing
        return configuration
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
    /// certificate (the instance is on this host, and it is asked nothing secret), presenting the listener's own
    /// certificate so that a listener demanding client certificates (`--tls-ca`) lets the check in.
    public var healthCheckTLS: RPCClientTLS? {
        tls.map { RPCClientTLS(trustRoots: .anyCertificate, certificate: $0) }
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

public import ArgumentParser
import Foundation
public import FoyerRPC
public import FoyerStorage
public import Logging

/// The options every Foyer executable takes. Each can also come from an environment variable (named in
/// `--help`); a flag wins over the environment, which wins over the default.
public struct ServiceOptions: ParsableArguments, Sendable {
    @Option(help: "Address to listen on. (env: FOYER_HOST; default: 127.0.0.1)")
    public var host: String?

    @Option(help: "Port to listen on; 0 picks a free one. (env: FOYER_PORT; default: the service's port)")
    public var port: Int?

    @Option(
        help: "Directory for the SQLite database, the cluster secret and keys. (env: FOYER_DATA_DIR; default: .data)"
    )
    public var dataDir: String?

    @Option(
        help:
            "Database: a postgres:// URL, or sqlite:PATH. (env: FOYER_DATABASE; default: sqlite:<data-dir>/<service>.sqlite)"
    )
    public var database: String?

    @Option(
        help:
            "PostgreSQL schema for this service's tables, created if missing. (env: FOYER_DATABASE_SCHEMA; default: the service's name)"
    )
    public var databaseSchema: String?

    @Option(
        help: """
            PostgreSQL: most connections this process opens to the database. \
            (env: FOYER_DATABASE_POOL_SIZE; default: 10)
            """
    )
    public var databasePoolSize: Int?

    @Option(
        help: """
            PostgreSQL: seconds one statement may run (blocked on a lock, say) before it fails as unavailable; 0: no \
            limit. (env: FOYER_DATABASE_STATEMENT_TIMEOUT_SECONDS; default: 30)
            """
    )
    public var databaseStatementTimeoutSeconds: Int?

    @Option(
        help: """
            SQLite: most transactions that share one commit (one fsync) when they queue for the writer; 1 commits \
            each alone. (env: FOYER_SQLITE_GROUP_COMMIT; default: 32)
            """
    )
    public var sqliteGroupCommit: Int?

    @Option(
        help: """
            File holding the cluster secret (base64url); created with a new secret if missing. The secret itself in \
            FOYER_CLUSTER_SECRET wins over any file. (env: FOYER_CLUSTER_SECRET_FILE; default: <data-dir>/cluster-secret)
            """
    )
    public var clusterSecretFile: String?

    @Option(
        help: "Log level: trace, debug, info, notice, warning, error, critical. (env: FOYER_LOG_LEVEL; default: info)"
    )
    public var logLevel: String?

    @Option(help: "Log format: text or json. (env: FOYER_LOG_FORMAT; default: text)")
    public var logFormat: String?

    @Option(
        help:
            "Seconds in-flight requests get on shutdown before connections close. (env: FOYER_DRAIN_SECONDS; default: 10)"
    )
    public var drainSeconds: Int?

    @Option(
        help: """
            Most connections the listener holds, counted from the TCP accept; more are refused. \
            (env: FOYER_MAX_CONNECTIONS; default: 1024)
            """
    )
    public var maxConnections: Int?

    @Option(
        help: """
            Most connections the listener holds from one source (an IPv4 address or an IPv6 /64; behind a trusted \
            proxy, the client the PROXY header names); more from it are refused. \
            (env: FOYER_MAX_CONNECTIONS_PER_SOURCE; default: 64)
            """
    )
    public var maxConnectionsPerSource: Int?

    @Option(
        help: """
            Most connections the listener holds from one IPv6 /48, all its /64s together; more from it are refused. \
            (env: FOYER_MAX_CONNECTIONS_PER_NETWORK; default: 256)
            """
    )
    public var maxConnectionsPerNetwork: Int?

    @Option(
        help: """
            PEM certificate chain (leaf first) for the RPC listener, which then speaks TLS 1.2/1.3 only; needs \
            --tls-key. (env: FOYER_TLS_CERTIFICATE; default: none, plaintext)
            """
    )
    public var tlsCertificate: String?

    @Option(help: "PEM private key of --tls-certificate. (env: FOYER_TLS_KEY; default: none)")
    public var tlsKey: String?

    @Option(
        help: """
            The cluster's CA (PEM), for mutual TLS; needs --tls-certificate and --tls-key. Upstreams are then dialled \
            over TLS, their certificates verified against this CA, presenting --tls-certificate as client \
            certificate; an internal listener refuses peers without a client certificate signed by it (the \
            gateway's client-facing listeners ask none). Files are re-read on SIGHUP. \
            (env: FOYER_TLS_CA; default: none, upstreams in plaintext)
            """
    )
    public var tlsCa: String?

    @Option(
        help: """
            Port for Prometheus metrics (GET /metrics over HTTP) on --host; 0 picks a free one. \
            (env: FOYER_METRICS_PORT; default: none, no metrics endpoint)
            """
    )
    public var metricsPort: Int?

    @Option(
        help: """
            OpenTelemetry collector to export traces to over OTLP/HTTP (protobuf), as a base URL: spans go to \
            <URL>/v1/traces. (env: FOYER_OTLP_ENDPOINT; default: none, no tracing)
            """
    )
    public var otlpEndpoint: String?

    @Option(
        help: """
            Share of traces started here that are recorded, from 0 to 1; a call whose caller's trace is recorded \
            is recorded too (parent-based). (env: FOYER_TRACE_SAMPLE_RATIO; default: 1)
            """
    )
    public var traceSampleRatio: Double?

    @Flag(help: "Call the health method of a running instance at --host/--port and exit 0 if it serves.")
    public var checkHealth = false

    public init() {}

    /// Reads an environment variable, treating an empty value as unset.
    public static func environment(_ name: String) -> String? { SettingsReader().text(name) }

    public func resolvedHost() throws -> String {
        try SettingsReader().value(host, .text("--host", "FOYER_HOST")) ?? "127.0.0.1"
    }

    public func resolvedPort(default defaultPort: Int) throws -> Int {
        try SettingsReader().value(port, .int("--port", "FOYER_PORT", in: 0...65535)) ?? defaultPort
    }

    /// The metrics endpoint's port; `nil`: no endpoint.
    public func resolvedMetricsPort() throws -> Int? {
        try SettingsReader().value(metricsPort, .int("--metrics-port", "FOYER_METRICS_PORT", in: 0...65535))
    }

    public func resolvedDataDirectory() throws -> String {
        try SettingsReader().value(dataDir, .text("--data-dir", "FOYER_DATA_DIR")) ?? ".data"
    }

    /// The database: SQLite in the data directory by default; on PostgreSQL each service keeps its tables in a
    /// schema of its own (named after the service unless `--database-schema` says otherwise), so one database can
    /// host a whole cluster while every service still owns its tables.
    public func resolvedDatabase(service: String) throws -> DatabaseConfiguration {
        let settings = SettingsReader()
        var configuration = try DatabaseConfiguration.parse(
            try settings.value(database, .text("--database", "FOYER_DATABASE")) ?? "sqlite:",
            dataDirectory: resolvedDataDirectory(),
            defaultFileName: "\(service).sqlite"
        )
        if case .postgres = configuration.engine {
            let schemaName = Setting<String>(
                flag: "--database-schema",
                variable: "FOYER_DATABASE_SCHEMA",
                expectation: "letters, digits and underscores",
                parse: { $0 },
                isValid: { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } }
            )
            configuration.postgresSchema =
                try settings.value(databaseSchema, schemaName) ?? service.replacingOccurrences(of: "-", with: "_")
        }
        if let poolSize = try settings.value(
            databasePoolSize,
            .positive("--database-pool-size", "FOYER_DATABASE_POOL_SIZE")
        ) {
            configuration.limits.postgresPoolSize = poolSize
        }
        if let timeout = try settings.value(
            databaseStatementTimeoutSeconds,
            .nonNegative("--database-statement-timeout-seconds", "FOYER_DATABASE_STATEMENT_TIMEOUT_SECONDS")
        ) {
            configuration.limits.postgresStatementTimeout = timeout == 0 ? nil : .seconds(timeout)
        }
        if let groupCommit = try settings.value(
            sqliteGroupCommit,
            .positive("--sqlite-group-commit", "FOYER_SQLITE_GROUP_COMMIT")
        ) {
            configuration.limits.sqliteGroupCommitMaxTransactions = groupCommit
        }
        return configuration
    }

    /// Where traces go (`--otlp-endpoint`), and the sampling ratio; `nil`: no tracing.
    public func resolvedTraceExport() throws -> TraceExport.Settings? {
        let settings = SettingsReader()
        let endpoint = Setting<String>(
            flag: "--otlp-endpoint",
            variable: "FOYER_OTLP_ENDPOINT",
            expectation: "an http:// or https:// URL",
            parse: { $0 },
            isValid: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
        )
        let ratio = Setting<Double>(
            flag: "--trace-sample-ratio",
            variable: "FOYER_TRACE_SAMPLE_RATIO",
            expectation: "a number from 0 to 1",
            parse: { Double($0) },
            isValid: { (0...1).contains($0) }
        )
        let sampleRatio = try settings.value(traceSampleRatio, ratio) ?? 1
        guard let url = try settings.value(otlpEndpoint, endpoint) else { return nil }
        return TraceExport.Settings(endpoint: url, sampleRatio: sampleRatio)
    }

    public func resolvedDrainTimeout() throws -> Int {
        try SettingsReader().value(drainSeconds, .nonNegative("--drain-seconds", "FOYER_DRAIN_SECONDS")) ?? 10
    }

    /// The listener's connection limits: `maxConnections`, `maxConnectionsPerSource` and `maxConnectionsPerNetwork`
    /// of `RPCServerConfiguration`, whose defaults apply unless a flag or the environment says otherwise.
    public func resolvedConnectionLimits() throws -> (total: Int, perSource: Int, perNetwork: Int) {
        let settings = SettingsReader()
        let defaults = RPCServerConfiguration(serviceName: "", clusterSecret: nil)
        let total =
            try settings.value(maxConnections, .positive("--max-connections", "FOYER_MAX_CONNECTIONS"))
            ?? defaults.maxConnections
        let perSource =
            try settings.value(
                maxConnectionsPerSource,
                .positive("--max-connections-per-source", "FOYER_MAX_CONNECTIONS_PER_SOURCE")
            ) ?? defaults.maxConnectionsPerSource
        let perNetwork =
            try settings.value(
                maxConnectionsPerNetwork,
                .positive("--max-connections-per-network", "FOYER_MAX_CONNECTIONS_PER_NETWORK")
            ) ?? defaults.maxConnectionsPerNetwork
        return (total, perSource, perNetwork)
    }

    /// The listener's certificate and key, with the cluster CA (`--tls-ca`) as `clientCAPath`; `nil` (plaintext)
    /// unless certificate and key are given.
    /// - Throws: `ValidationError` when only one of certificate and key is given, or the CA without them.
    public func resolvedTLS() throws -> TLSSettings? {
        let settings = SettingsReader()
        let certificate = try settings.value(tlsCertificate, .text("--tls-certificate", "FOYER_TLS_CERTIFICATE"))
        let key = try settings.value(tlsKey, .text("--tls-key", "FOYER_TLS_KEY"))
        let ca = try settings.value(tlsCa, .text("--tls-ca", "FOYER_TLS_CA"))
        switch (certificate, key) {
        case (nil, nil):
            guard ca == nil else {
                throw ValidationError(
                    "--tls-ca / FOYER_TLS_CA needs --tls-certificate / FOYER_TLS_CERTIFICATE and --tls-key / FOYER_TLS_KEY"
                )
            }
            return nil
        case (let certificate?, let key?):
            return TLSSettings(certificatePath: certificate, keyPath: key, clientCAPath: ca)
        default:
            throw ValidationError(
                "--tls-certificate / FOYER_TLS_CERTIFICATE and --tls-key / FOYER_TLS_KEY must be given together"
            )
        }
    }

    public func resolvedLogLevel() throws -> Logger.Level {
        let names = Logger.Level.allCases.map(\.rawValue)
        return try SettingsReader().value(parsing: logLevel, .choice("--log-level", "FOYER_LOG_LEVEL", of: names))
            ?? .info
    }

    public func resolvedLogFormat() throws -> LogFormat {
        try SettingsReader().value(
            parsing: logFormat,
            .choice("--log-format", "FOYER_LOG_FORMAT", of: ["text", "json"])
        )
            ?? .text
    }

    /// The cluster secret: from `FOYER_CLUSTER_SECRET` if set, else from the secret file, which is created (mode
    /// 0600) with a new random secret when it does not exist.
    public func loadClusterSecret(logger: Logger) throws -> ClusterSecret {
        let settings = SettingsReader()
        if let text = settings.text("FOYER_CLUSTER_SECRET") { return try ClusterSecret(text: text) }
        let path =
            try settings.value(clusterSecretFile, .text("--cluster-secret-file", "FOYER_CLUSTER_SECRET_FILE"))
            ?? "\(resolvedDataDirectory())/cluster-secret"
        return try ClusterSecretFile.loadOrCreate(path: path, logger: logger)
    }
}

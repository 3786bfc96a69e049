public import Foundation

/// What ``StackProcesses/start(_:)`` starts: which executables, where their data goes, and what each is told.
public struct StackConfiguration: Sendable {
    /// The directory holding the five built executables (see ``StackProcesses/locateExecutables(environment:)``).
    public var binDirectory: URL
    /// Every service's data directory: SQLite files, the cluster secret, and `logs/<service>.log`.
    public var dataDirectory: URL
    /// SQLite files in the data directory, or one PostgreSQL database with a schema per service.
    public var database: StackDatabase = .sqlite
    /// Environment given to every service, after the stack's own settings (so it can override them).
    public var sharedEnvironment: [String: String] = [:]
    /// Environment given to one service, after the shared environment.
    public var environment: [StackService: [String: String]] = [:]
    /// Command-line arguments per service.
    public var arguments: [StackService: [String]] = [:]
    /// Whether identity runs in local mode with the outbox mailer (`FOYER_LOCAL_MODE=1`, `FOYER_MAILER=outbox`), so
    /// email links can be read from its outbox with the cluster secret. Default true: these stacks run on loopback
    /// for tests and benchmarks, as `make run` does. Off, identity has no mailer unless the environment names one.
    public var identityLocalMode = true
    /// Whether the gateway also serves its HTTP API, on ``StackProcesses/httpPort`` (`FOYER_HTTP_PORT`). Default
    /// false: the binary listener only.
    public var gatewayServesHTTP = false
    /// Whether the gateway also serves its admin listener, on ``StackProcesses/adminPort`` (`FOYER_ADMIN_PORT`).
    /// Default false.
    public var gatewayServesAdmin = false
    /// Whether every service serves Prometheus metrics, each on a loopback port of its own
    /// (``StackProcesses/metricsPort(of:)``, `FOYER_METRICS_PORT`). Default false: no metrics endpoint.
    public var servesMetrics = false
    /// Mutual TLS between every service and TLS on the gateway's listeners (see ``StackTLS``); `nil` (the default):
    /// plaintext everywhere.
    public var tls: StackTLS?
    /// How long a service may take from launch until it answers `--check-health`. Default 60 s (a loaded machine
    /// running debug builds; a service usually answers in well under a second).
    public var startTimeout: Duration = .seconds(60)
    /// How long a service may take to stop after SIGTERM before it is killed (and reported). Default 30 s.
    public var stopTimeout: Duration = .seconds(30)

    public init(binDirectory: URL, dataDirectory: URL, database: StackDatabase = .sqlite) {
        self.binDirectory = binDirectory
        self.dataDirectory = dataDirectory
        self.database = database
    }

    /// The cluster secret file the services share (created by the first to start).
    public var clusterSecretFile: URL { dataDirectory.appendingPathComponent("cluster-secret") }

    /// The log of `service`: everything it printed, across restarts.
    public func logFile(of service: StackService) -> URL {
        dataDirectory.appendingPathComponent("logs", isDirectory: true).appendingPathComponent("\(service).log")
    }

    /// The SQLite file of `service` (meaningful on ``StackDatabase/sqlite`` only).
    public func sqliteFile(of service: StackService) -> URL {
        dataDirectory.appendingPathComponent("\(service).sqlite")
    }
}

import Foundation
import FoyerAPI
import FoyerClient
import FoyerRPC
import FoyerStackProcesses
import FoyerTestSupport
import Testing

/// The five real executables started by ``withRunningStack(_:_:)``, with clients of them and direct access to
/// their databases.
struct RunningStack: Sendable {
    let processes: StackProcesses
    let databases: StackDatabases
    /// The file every service adds to its clock (debug builds; see ServiceClock): tests move time with it.
    let clockFile: URL

    var directory: URL { processes.configuration.dataDirectory }

    /// The gateway's HTTP API (served when the stack was started with ``RunningStackOptions/gatewayHTTP``).
    var httpBaseURL: String { "http://127.0.0.1:\(processes.httpPort)" }

    /// The stack's clock: the real time shifted by ``setClockOffset(seconds:)``.
    var now: Date { Date().addingTimeInterval(RunningStack.offset(clockFile)) }

    /// A client of the gateway on the stack's (possibly shifted) clock, its configuration then changed by `adjust`;
    /// the caller shuts it down.
    func client(
        session: SessionTokens? = nil,
        adjust: (inout FoyerClientConfiguration) -> Void = { _ in }
    ) -> FoyerClient {
        var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: processes.port(of: .gateway))
        configuration.peerName = "foyer-integration-tests"
        configuration.maxAttempts = 1
        if let tls = processes.configuration.tls { configuration.tls = .init(caFile: tls.caFile) }
        let clockFile = clockFile
        configuration.now = { Date().addingTimeInterval(RunningStack.offset(clockFile)) }
        adjust(&configuration)
        return FoyerClient(
            configuration: configuration,
            session: session,
            logger: TestLogging.logger("foyer.test.client")
        )
    }

    /// Runs `body` with a client (see `client(session:adjust:)`), shutting it down afterwards.
    func withClient<T: Sendable>(
        session: SessionTokens? = nil,
        adjust: (inout FoyerClientConfiguration) -> Void = { _ in },
        _ body: (FoyerClient) async throws -> T
    ) async throws -> T {
        let client = client(session: session, adjust: adjust)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// Asks cleanup for a sweep now (as `foyer cleanup sweep` does) with the cluster secret from the data directory.
    func sweep() async throws -> SweepReport {
        let secret = try FoyerCleanupClient.loadSecret(
            path: processes.configuration.clusterSecretFile.path,
            environment: [:]
        )
        let cleanup = FoyerCleanupClient(
            host: "127.0.0.1",
            port: processes.port(of: .cleanup),
            secret: secret,
            callTimeout: .seconds(120),
            tls: operatorTLS,
            logger: TestLogging.logger("foyer.test.cleanup-client")
        )
        do {
            let report = try await cleanup.sweep(dryRun: false)
            await cleanup.shutdown()
            return report
        } catch {
            await cleanup.shutdown()
            throw error
        }
    }

    /// How an operator's client reaches an internal service of a stack with ``RunningStackOptions/tls``: the CA, and
    /// cleanup's certificate as client certificate; `nil` on a plaintext stack.
    var operatorTLS: RPCClientTLS? {
        processes.configuration.tls.map { tls in
            RPCClientTLS(
                trustRoots: .caFile(tls.caFile),
                certificate: tls.certificateFiles[.cleanup].flatMap { certificate in
                    tls.keyFiles[.cleanup].map { TLSSettings(certificatePath: certificate, keyPath: $0) }
                }
            )
        }
    }

    /// Moves every service's clock (and the clients') to `seconds` past the real time.
    func setClockOffset(seconds: TimeInterval) throws {
        try "\(seconds)\n".write(to: clockFile, atomically: true, encoding: .utf8)
    }

    static func offset(_ file: URL) -> TimeInterval {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return 0 }
        return TimeInterval(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Every service's log end, for a failure message.
    func logs() -> String {
        StackService.allCases.map { processes.logTail(of: $0, lines: 30) }.joined(separator: "\n")
    }
}

/// How a test's stack is started.
struct RunningStackOptions: Sendable {
    var engine: TestEngine = .sqlite
    /// With ``engine`` `.postgres`: the URL of a server of the test's own, used instead of FOYER_TEST_POSTGRES_URL's.
    var postgresURL: String?
    /// The database of another running stack to start on instead of fresh schemas (a second replica of every
    /// service, ReplicaTests); that stack drops the schemas, this one leaves them.
    var sharedDatabase: StackDatabase?
    /// Whether the gateway also serves its HTTP API (on ``RunningStack/httpBaseURL``).
    var gatewayHTTP = false
    /// Whether the gateway also serves its admin listener (on ``RunningStack/adminBaseURL``).
    var gatewayAdmin = false
    /// Whether every service serves Prometheus metrics (``StackProcesses/metricsPort(of:)``).
    var metrics = false
    /// TLS everywhere, mutual between the services (clients of ``RunningStack/client(session:)`` trust its CA).
    var tls: StackTLS?
    /// Extra environment per service (after the test defaults below).
    var environment: [StackService: [String: String]] = [:]
    /// Files to write into the data directory before the services start (name to contents).
    var files: [String: [UInt8]] = [:]
    /// Runs in the fresh data directory before the services start, for what must be made then (keys a service
    /// reads at start); returns environment to add per service (after `environment`), e.g. a written file's path.
    var prepare: (@Sendable (_ directory: URL) async throws -> [StackService: [String: String]])?
}

/// Starts the five executables over a fresh data directory (and, on PostgreSQL, fresh schemas), runs `body`, then
/// stops them with SIGTERM, requires every one to exit 0, and removes what they stored.
///
/// Test settings: cleanup finishes stuck accounts at once (grace 0) and sweeps only at start and when asked;
/// guest sign-ups, password hashes and email links are not limited per source (every test signs in from 127.0.0.1);
/// services drain for 1 s; identity hashes passwords with scrypt N = 2^10 (`FOYER_TEST_SCRYPT_LOG_N`, debug
/// builds): at the default 2^17, the suites' stacks running side by side on a small loaded machine spent seconds
/// per hash and calls passed their deadlines, and no suite here checks the cost of hashing.
func withRunningStack<T: Sendable>(
    _ options: RunningStackOptions = RunningStackOptions(),
    _ body: (RunningStack) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("foyer-integration-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let prepared: [StackService: [String: String]]
    do {
        for (name, contents) in options.files {
            try Data(contents).write(to: directory.appendingPathComponent(name))
        }
        prepared = try await options.prepare?(directory) ?? [:]
    } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
    }
    let clockFile = directory.appendingPathComponent("clock-offset")
    try "0\n".write(to: clockFile, atomically: true, encoding: .utf8)

    var configuration = StackConfiguration(
        binDirectory: try StackProcesses.locateExecutables(),
        dataDirectory: directory,
        database: try options.sharedDatabase ?? stackDatabase(options.engine, url: options.postgresURL)
    )
    configuration.gatewayServesHTTP = options.gatewayHTTP
    configuration.gatewayServesAdmin = options.gatewayAdmin
    configuration.servesMetrics = options.metrics
    configuration.tls = options.tls
    configuration.sharedEnvironment = [
        "FOYER_DRAIN_SECONDS": "1",
        "FOYER_TEST_CLOCK_FILE": clockFile.path,
        "FOYER_LOG_LEVEL": ProcessInfo.processInfo.environment["FOYER_TEST_SERVICE_LOG_LEVEL"] ?? "info",
    ]
    configuration.environment = [
        .identity: [
            "FOYER_TEST_SCRYPT_LOG_N": "10",
            // Every test signs in from 127.0.0.1: identity's per-source limits would count the whole suite as one
            // client.
            "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE": "1000000",
            "FOYER_PASSWORD_HASH_BURST_PER_SOURCE": "1000000",
            "FOYER_EMAIL_LINKS_PER_SOURCE_PER_HOUR": "1000000",
        ],
        .guestQuota: ["FOYER_SIGNUPS_PER_HOUR": "1000000", "FOYER_MERGE_RECORD_RETENTION_DAYS": "1"],
        // Short retentions, so that the leftover checks pass them with a day's move of the clock (LeftoverChecks).
        .userData: ["FOYER_MERGE_RECORD_RETENTION_DAYS": "1", "FOYER_DELETION_TOMBSTONE_SECONDS": "3600"],
        // ...and the gateway's per-source limits likewise.
        .gateway: [
            "FOYER_REFRESH_PER_MINUTE": "1000000",
            "FOYER_SIGN_IN_PER_MINUTE": "1000000",
            "FOYER_EMAIL_LINK_REDEMPTIONS_PER_MINUTE": "1000000",
        ],
        .cleanup: ["FOYER_CLEANUP_GRACE_SECONDS": "0", "FOYER_CLEANUP_INTERVAL_SECONDS": "86400"],
    ]
    for extra in [options.environment, prepared] {
        configuration.environment.merge(extra) { defaults, given in defaults.merging(given) { $1 } }
    }

    let processes = try await StackProcesses.start(configuration)
    let result: T
    do {
        let databases = try await StackDatabases.open(configuration)
        do {
            result = try await body(RunningStack(processes: processes, databases: databases, clockFile: clockFile))
        } catch {
            try? await databases.close()
            throw error
        }
        try await databases.close()
    } catch {
        let logs = StackService.allCases.map { processes.logTail(of: $0, lines: 30) }.joined(separator: "\n")
        await processes.killAll()
        if options.sharedDatabase == nil { await dropSchemas(configuration.database) }
        Issue.record("the stack's logs:\n\(logs)")
        try? FileManager.default.removeItem(at: directory)
        throw error
    }
    try await processes.terminate()
    if options.sharedDatabase == nil { await dropSchemas(configuration.database) }
    try? FileManager.default.removeItem(at: directory)
    return result
}

/// SQLite, or fresh schemas in the PostgreSQL database of FOYER_TEST_POSTGRES_URL.
private func stackDatabase(_ engine: TestEngine, url: String?) throws -> StackDatabase {
    switch engine {
    case .sqlite:
        return .sqlite
    case .postgres:
        guard let url = url ?? ProcessInfo.processInfo.environment[postgresURLVariable], !url.isEmpty else {
            throw TestDatabaseError.postgresURLMissing
        }
        let prefix = "it_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        return .postgres(url: url, schemaPrefix: String(prefix))
    }
}

/// Whether the PostgreSQL variants can run (they are skipped, saying why, when no server is configured).
let postgresConfigured = !(ProcessInfo.processInfo.environment[postgresURLVariable] ?? "").isEmpty

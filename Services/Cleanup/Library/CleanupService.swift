public import FoyerAPI
import FoyerLifecycle
public import FoyerRPC
import FoyerStorage
import FoyerWebhooks
public import Logging
public import ServiceLifecycle

/// The cleanup service: deletes guests idle past the TTL with everything they own, finishes merges and deletions
/// that were interrupted, and keeps a pseudonymous record of every deletion. Services/Cleanup/README.md is its
/// contract.
///
/// ```swift
/// let service = try await CleanupService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: service.services, gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public final class CleanupService: Sendable {
    /// The RPC server hosting cleanup's methods.
    public let server: RPCServer
    public let configuration: CleanupConfiguration
    private let loop: SweepLoop
    private let clients: [RPCClient]
    private let sweeper: Sweeper
    private let database: FoyerDatabase

    /// Everything to run in one `ServiceGroup`: the clients of identity, guest-quota and user-data, the sweep loop,
    /// and the server. A group shuts its services down in reverse order, so the server drains first (a `sweep`
    /// call in flight ends), then the loop stops after its current account, and the clients close last.
    public var services: [any Service] { clients + [loop, server] }

    /// Checks the configuration, opens and migrates the database, loads (or creates) the pseudonym key and builds
    /// the server, the loop and the clients (nothing runs yet).
    ///
    /// - Throws: ``CleanupConfigurationError`` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: CleanupConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> CleanupService {
        try configuration.validate()
        let (store, key) = try await FoyerDatabase.open(configuration.database, logger: logger) { database in
            let store = CleanupStore(database: database)
            try await store.migrate()
            if let configured = configuration.pseudonymKey { return (store, configured) }
            return (store, try await store.pseudonymKey(now: configuration.now()))
        }
        let pseudonyms = Pseudonymizer(key: key)
        let recorder = StoreDeletionRecorder(store: store, pseudonyms: pseudonyms, now: configuration.now)
        let identity = RPCClient(configuration: configuration.identity, logger: logger)
        let guestQuota = RPCClient(configuration: configuration.guestQuota, logger: logger)
        let userData = RPCClient(configuration: configuration.userData, logger: logger)
        let sagas = AccountSagas(
            identity: identity,
            guestQuota: guestQuota,
            userData: userData,
            recorder: recorder,
            hooks: configuration.appHooks.map { AppHooks(settings: $0, http: URLSessionHTTPClient()) },
            logger: logger
        )
        let sweeper = Sweeper(
            configuration: configuration,
            store: store,
            pseudonyms: pseudonyms,
            sagas: sagas,
            logger: logger
        )
        var router = RPCRouter(serving: CleanupMethods.all)
        CleanupHandlers(sweeper: sweeper, recorder: recorder).register(on: &router)
        let server = RPCServer(configuration: serverConfiguration, router: router, logger: logger)
        logger.info(
            "cleanup ready",
            metadata: [
                "database": "\(configuration.database)", "replica": "\(configuration.replicaID)",
                "ttl.seconds": "\(configuration.guestTTL.components.seconds)",
                "interval.seconds": "\(configuration.sweepInterval.components.seconds)",
            ]
        )
        return CleanupService(
            server: server,
            configuration: configuration,
            sweeper: sweeper,
            clients: [identity, guestQuota, userData],
            database: store.database
        )
    }

    private init(
        server: RPCServer,
        configuration: CleanupConfiguration,
        sweeper: Sweeper,
        clients: [RPCClient],
        database: FoyerDatabase
    ) {
        self.server = server
        self.configuration = configuration
        self.sweeper = sweeper
        self.clients = clients
        self.database = database
        self.loop = SweepLoop(sweeper: sweeper, interval: configuration.sweepInterval)
    }

    /// Sweeps now (what the `sweep` method does), after any sweep of this replica already running.
    public func sweep(dryRun: Bool = false) async -> SweepReport {
        await sweeper.sweep(dryRun: dryRun)
    }

    /// What the `status` method answers.
    public func status() async -> CleanupStatusResponse {
        await sweeper.status()
    }

    /// The reports of the sweeps this replica finishes from now on (loop or method; not dry runs), for logs and
    /// tests. The stream ends when the service closes.
    public func sweepReports() -> AsyncStream<SweepReport> {
        sweeper.reports()
    }

    /// Closes the clients (if the group did not run them) and the database. Call it after the services stopped.
    public func close() async throws {
        sweeper.finishReports()
        for client in clients { await client.shutdown() }
        try await database.close()
    }
}

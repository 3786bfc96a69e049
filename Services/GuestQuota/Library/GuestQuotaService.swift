public import FoyerRPC
import FoyerStorage
public import Logging

/// The guest-quota service: quotas and feature gates per plan, sign-up admission per source, a cap on live guests,
/// plan changes on upgrade and counters moved on merge. Services/GuestQuota/README.md is its contract.
///
/// ```swift
/// let service = try await GuestQuotaService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [service.server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public final class GuestQuotaService: Sendable {
    /// The RPC server hosting the methods; the caller runs it (in a `ServiceGroup`).
    public let server: RPCServer
    public let configuration: GuestQuotaConfiguration
    private let store: GuestQuotaStore

    private init(server: RPCServer, configuration: GuestQuotaConfiguration, store: GuestQuotaStore) {
        self.server = server
        self.configuration = configuration
        self.store = store
    }

    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running).
    ///
    /// - Throws: `GuestQuotaConfigurationError` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: GuestQuotaConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> GuestQuotaService {
        try configuration.validate()
        let store = try await FoyerDatabase.open(configuration.database, logger: logger) { database in
            let store = GuestQuotaStore(database: database, configuration: configuration, logger: logger)
            try await store.migrate()
            return store
        }
        var router = RPCRouter()
        GuestQuotaHandlers(store: store).register(on: &router)
        let server = RPCServer(configuration: serverConfiguration, router: router, logger: logger)
        logger.info(
            "guest-quota ready",
            metadata: [
                "plans": "\(configuration.plans.plans.keys.sorted().joined(separator: ","))",
                "database": "\(configuration.database)",
            ]
        )
        return GuestQuotaService(server: server, configuration: configuration, store: store)
    }

    /// Closes the database. Call it after the server has stopped.
    public func close() async throws {
        try await store.database.close()
    }
}

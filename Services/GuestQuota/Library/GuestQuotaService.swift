import FoyerAPI
public import FoyerRPC
public import FoyerServiceKit
public import Logging

/// The guest-quota service: quotas and feature gates per plan, sign-up admission per source, a cap on live guests,
/// plan changes on upgrade and counters moved on merge. Services/GuestQuota/README.md is its contract.
///
/// ```swift
/// let service = try await GuestQuotaService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [service.server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public typealias GuestQuotaService = StoreService<GuestQuotaConfiguration>

extension GuestQuotaConfiguration: StoreServiceConfiguration {}

extension GuestQuotaStore: ServiceStore {}

extension StoreService where Configuration == GuestQuotaConfiguration {
    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running).
    ///
    /// - Throws: `GuestQuotaConfigurationError` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: GuestQuotaConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> GuestQuotaService {
        try await make(
            GuestQuotaStore.self,
            configuration: configuration,
            server: serverConfiguration,
            logger: logger,
            metadata: ["plans": "\(configuration.plans.plans.keys.sorted().joined(separator: ","))"],
            serving: GuestQuotaMethods.all
        ) { store, router in
            GuestQuotaHandlers(store: store).register(on: &router)
        }
    }
}

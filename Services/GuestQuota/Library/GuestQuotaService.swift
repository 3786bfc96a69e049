import FoyerAPI
public import FoyerRPC
public import FoyerServiceKit
public import Logging

/// The guest-quota service: quotas and feature gates per plan, sign-up admission per source, a cap on live guests,
/// plan changes on upgrade and counters moved on merge. Services/GuestQuota/README.md is its contract.
///
/// ```swift
/// let (service, denialFlush) = try await GuestQuotaService.makeWithDenialFlush(
///     configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [denialFlush, service.server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public typealias GuestQuotaService = StoreService<GuestQuotaConfiguration>

extension GuestQuotaConfiguration: StoreServiceConfiguration {}

extension GuestQuotaStore: ServiceStore {}

extension StoreService where Configuration == GuestQuotaConfiguration {
    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running). Its
    /// denials are counted in its own `stats` only, never flushed to the table: a deployment uses
    /// ``makeWithDenialFlush(configuration:server:logger:)``.
    ///
    /// - Throws: `GuestQuotaConfigurationError` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: GuestQuotaConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> GuestQuotaService {
        try await makeWithDenialFlush(configuration: configuration, server: serverConfiguration, logger: logger)
            .service
    }

    /// ``make(configuration:server:logger:)``, and the loop that flushes the service's denial counts to its
    /// database (run it before the server in the `ServiceGroup`'s list; see ``DenialFlushLoop``).
    public static func makeWithDenialFlush(
        configuration: GuestQuotaConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> (service: GuestQuotaService, denialFlush: DenialFlushLoop) {
        var made: GuestQuotaStore?
        let service = try await make(
            GuestQuotaStore.self,
            configuration: configuration,
            server: serverConfiguration,
            logger: logger,
            metadata: ["plans": "\(configuration.plans.plans.keys.sorted().joined(separator: ","))"],
            serving: GuestQuotaMethods.all
        ) { store, router in
            made = store
            GuestQuotaHandlers(store: store).register(on: &router)
        }
        guard let store = made else { preconditionFailure("StoreService.make registers the routes with the store") }
        return (service, DenialFlushLoop(store: store))
    }
}

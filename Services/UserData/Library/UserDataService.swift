import FoyerAPI
public import FoyerRPC
public import FoyerServiceKit
public import Logging

/// The user-data service: a per-user document store; merge of a guest into an account; delete everything of a
/// user; export. Services/UserData/README.md is its contract.
///
/// ```swift
/// let service = try await UserDataService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [service.server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public typealias UserDataService = StoreService<UserDataConfiguration>

extension UserDataConfiguration: StoreServiceConfiguration {}

extension DocumentStore: ServiceStore {}

extension StoreService where Configuration == UserDataConfiguration {
    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running).
    ///
    /// - Throws: `UserDataConfigurationError` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: UserDataConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> UserDataService {
        try await make(
            DocumentStore.self,
            configuration: configuration,
            server: serverConfiguration,
            logger: logger,
            metadata: ["value.max": "\(configuration.valueByteCountMax)"],
            serving: UserDataMethods.all
        ) { store, router in
            UserDataHandlers(store: store).register(on: &router)
        }
    }
}

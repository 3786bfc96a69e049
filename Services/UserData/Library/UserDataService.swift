public import FoyerRPC
import FoyerStorage
public import Logging

/// The user-data service: a per-user document store; merge of a guest into an account; delete everything of a
/// user; export. Services/UserData/README.md is its contract.
///
/// ```swift
/// let service = try await UserDataService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [service.server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// try await service.close()
/// ```
public final class UserDataService: Sendable {
    /// The RPC server hosting the methods; the caller runs it (in a `ServiceGroup`).
    public let server: RPCServer
    public let configuration: UserDataConfiguration
    private let store: DocumentStore

    private init(server: RPCServer, configuration: UserDataConfiguration, store: DocumentStore) {
        self.server = server
        self.configuration = configuration
        self.store = store
    }

    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running).
    ///
    /// - Throws: `UserDataConfigurationError` for an unusable configuration; the storage layer's errors when the
    ///   database cannot be opened or migrated (nothing is left open then).
    public static func make(
        configuration: UserDataConfiguration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger
    ) async throws -> UserDataService {
        try configuration.validate()
        let store = try await FoyerDatabase.open(configuration.database, logger: logger) { database in
            let store = DocumentStore(database: database, configuration: configuration, logger: logger)
            try await store.migrate()
            return store
        }
        var router = RPCRouter()
        UserDataHandlers(store: store).register(on: &router)
        let server = RPCServer(configuration: serverConfiguration, router: router, logger: logger)
        logger.info(
            "user-data ready",
            metadata: [
                "database": "\(configuration.database)",
                "value.max": "\(configuration.valueByteCountMax)",
            ]
        )
        return UserDataService(server: server, configuration: configuration, store: store)
    }

    /// Closes the database. Call it after the server has stopped.
    public func close() async throws {
        try await store.database.close()
    }
}

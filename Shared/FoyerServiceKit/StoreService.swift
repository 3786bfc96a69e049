public import Foundation
public import FoyerRPC
public import FoyerStorage
public import FoyerWire
public import Logging

/// The settings every store service has: where its database is and its clock; plus a check of them all.
public protocol StoreServiceConfiguration: Sendable {
    /// Where the service keeps its tables.
    var database: DatabaseConfiguration { get set }
    /// The clock. Tests inject a manual one.
    var now: @Sendable () -> Date { get set }

    /// Every other setting at its default.
    init(database: DatabaseConfiguration)

    /// Checks the settings; ``StoreService/make(_:configuration:server:logger:metadata:register:)`` calls it before
    /// opening anything.
    func validate() throws
}

/// A service's tables and the transactions over them: built on an open database, then migrated.
public protocol ServiceStore: Sendable {
    associatedtype Configuration: StoreServiceConfiguration

    /// The service's name, as it logs itself ("guest-quota", "user-data").
    static var serviceName: String { get }

    init(database: FoyerDatabase, configuration: Configuration, logger: Logger)

    /// Brings the tables to the current schema.
    func migrate() async throws
}

/// A service that keeps one store and answers RPC: guest-quota and user-data. ``make(_:configuration:server:logger:metadata:register:)``
/// opens and migrates the database and builds the router; the caller runs ``server`` (in a `ServiceGroup`), then
/// calls ``close()``.
public final class StoreService<Configuration: StoreServiceConfiguration>: Sendable {
    /// The RPC server hosting the methods; the caller runs it (in a `ServiceGroup`).
    public let server: RPCServer
    public let configuration: Configuration
    private let database: FoyerDatabase

    private init(server: RPCServer, configuration: Configuration, database: FoyerDatabase) {
        self.server = server
        self.configuration = configuration
        self.database = database
    }

    /// Checks the configuration, opens and migrates the database, and creates the server (not yet running) with
    /// the methods `register` puts on the router, which serves exactly the operation table `methods`.
    ///
    /// - Parameter metadata: what the "ready" log line says besides the database.
    /// - Throws: what `configuration.validate()` throws for an unusable configuration; the storage layer's errors
    ///   when the database cannot be opened or migrated (nothing is left open then).
    public static func make<Store: ServiceStore>(
        _ store: Store.Type,
        configuration: Configuration,
        server serverConfiguration: RPCServerConfiguration,
        logger: Logger,
        metadata: Logger.Metadata = [:],
        serving methods: [RPCMethodDescriptor],
        register: (Store, inout RPCRouter) -> Void
    ) async throws -> StoreService where Store.Configuration == Configuration {
        try configuration.validate()
        let (database, store) = try await FoyerDatabase.open(configuration.database, logger: logger) { database in
            let store = Store(database: database, configuration: configuration, logger: logger)
            try await store.migrate()
            return (database, store)
        }
        var router = RPCRouter(serving: methods)
        register(store, &router)
        let server = RPCServer(configuration: serverConfiguration, router: router, logger: logger)
        var metadata = metadata
        metadata["database"] = "\(configuration.database)"
        logger.info("\(Store.serviceName) ready", metadata: metadata)
        return StoreService(server: server, configuration: configuration, database: database)
    }

    /// Closes the database. Call it after the server has stopped.
    public func close() async throws {
        try await database.close()
    }
}

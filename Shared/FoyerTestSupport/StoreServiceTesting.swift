// The harness of the store services (guest-quota, user-data): the service in-process on port 0 over a fresh
// database, a client of it, its clock; each test target adds its calls in an extension of `StoreServiceHarness`.

public import FoyerRPC
public import FoyerServiceKit
public import FoyerStorage
public import FoyerWire
public import Logging
public import Testing

/// A running store service on a fresh database, a client of it, and its clock.
public struct StoreServiceHarness<Configuration: StoreServiceConfiguration>: Sendable {
    public let client: RPCClient
    public let clock: TestClock
    public let configuration: Configuration
    /// The service's database, for checks of what it stored.
    public let database: FoyerDatabase
}

/// Runs `body` against a store service started in-process on port 0 over a fresh database on `engine`.
///
/// - Parameters:
///   - service: the service's name ("guest-quota"), for its server, client and logger.
///   - make: the service's `make(configuration:server:logger:)`.
///   - configure: adjusts the configuration (the clock is already a `TestClock`).
///   - maxAttempts: the client's attempts per call (1 to see a failure a retry would hide).
public func withStoreService<Configuration: StoreServiceConfiguration, T: Sendable>(
    _ engine: TestEngine,
    service: String,
    make: (Configuration, RPCServerConfiguration, Logger) async throws -> StoreService<Configuration>,
    configure: (inout Configuration) -> Void,
    maxAttempts: Int,
    _ body: (StoreServiceHarness<Configuration>) async throws -> T
) async throws -> T {
    try await withTestDatabase(engine) { database in
        let clock = TestClock()
        var configuration = Configuration(database: database.configuration)
        configuration.database.limits.postgresPoolSize = 3
        // Tests need no durability across power loss; skipping the fsync per commit keeps the SQLite suites fast.
        configuration.database.sqliteSynchronous = .normal
        configuration.now = clock.now
        configure(&configuration)
        let instance = try await make(
            configuration,
            testServerConfiguration(service: service),
            TestLogging.logger("foyer.test.\(service)")
        )
        return try await withServiceClient(
            instance.server,
            service: service,
            maxAttempts: maxAttempts,
            close: instance.close
        ) { client in
            try await body(
                StoreServiceHarness(client: client, clock: clock, configuration: configuration, database: database)
            )
        }
    }
}

/// Expects `body` to fail with `status`, and returns the error for further checks.
///
/// - Parameter names: the service's status names (`GuestQuotaStatus.name(of:)`), for the messages.
@discardableResult
public func expectStatus<T>(
    _ status: RPCStatus,
    names: (RPCStatus) -> String?,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> RPCError? {
    func name(_ status: RPCStatus) -> String { names(status) ?? "\(status)" }
    do {
        _ = try await body()
        Issue.record("expected \(name(status)), got an answer", sourceLocation: sourceLocation)
        return nil
    } catch let error as RPCError {
        #expect(
            error.status == status,
            "expected \(name(status)), got \(name(error.status)): \(error.message)",
            sourceLocation: sourceLocation
        )
        return error
    } catch {
        Issue.record("expected an RPCError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
